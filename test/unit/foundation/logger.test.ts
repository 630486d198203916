import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('redacts configured secrets wherever they appear, and token-shaped strings', () => {
    const { lines, destination } = capture();
    const log = createLogger({ secrets: ['super-secret-key-123'], destination });
    log.info(
      { token: 'abc', nested: { apiKey: 'k' }, note: 'key super-secret-key-123 leaked' },
      'using xoxb-1111-2222-abcd',
    );
    log.error({ err: new Error('auth failed for super-secret-key-123') }, 'boom');
    const text = lines.join('');
    expect(text).not.toContain('super-secret-key-123');
    expect(text).not.toContain('xoxb-1111-2222-abcd');
    expect(text).not.toContain('"abc"');
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(5);
  });

  it('child loggers carry their context', () => {
    const { lines, destination } = capture();
    createLogger({ destination }).child({ platform: 'slack', thread: 't1' }).info('hello');
    expect(JSON.parse(lines[0]!)).toMatchObject({ platform: 'slack', thread: 't1', msg: 'hello' });
  });
});
