import { expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';

it('reads THREADLAB_RETENTION_* as durations, off and unset as kept', () => {
  expect(loadConfig({}).retention).toEqual({ stateMs: undefined, webHistoryMs: undefined, auditMs: undefined });
  const config = loadConfig({
    THREADLAB_RETENTION_STATE: '12h',
    THREADLAB_RETENTION_WEB_HISTORY: 'off',
    THREADLAB_RETENTION_AUDIT: '2w',
  });
  expect(config.retention).toEqual({ stateMs: 12 * 3_600_000, webHistoryMs: undefined, auditMs: 14 * 86_400_000 });
});

it('refuses a retention without its unit, naming the variable and the format', () => {
  expect(() => loadConfig({ THREADLAB_RETENTION_AUDIT: '30', THREADLAB_RETENTION_STATE: 'forever' })).toThrow(
    [
      'THREADLAB_RETENTION_STATE: expected a duration with its unit (90m, 12h, 30d, 2w) or off (got "forever")',
      'THREADLAB_RETENTION_AUDIT: expected a duration with its unit (90m, 12h, 30d, 2w) or off (got "30")',
    ].join('\n'),
  );
});
