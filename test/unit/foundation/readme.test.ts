import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../../src/config/index.js';

// The configuration table lives in docs/configuration.md (the README links to it).
describe('docs/configuration.md', () => {
  const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
  const table = doc.split('<!-- config-table:start -->')[1]?.split('<!-- config-table:end -->')[0] ?? '';
  // A row is `| `NAME` | default | meaning |`, its cells padded or not (prettier aligns Markdown tables).
  const documented = [...table.matchAll(/^\| `([A-Z_]+)` *\|/gm)].map((m) => m[1]);

  it('documents every configuration variable, and only those', () => {
    expect(documented.sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('states the documented defaults that the schema has', () => {
    for (const [name, schema] of Object.entries(envSchema.shape)) {
      const parsed = (
        schema as unknown as { safeParse: (v: unknown) => { success: boolean; data?: unknown } }
      ).safeParse(undefined);
      if (!parsed.success || parsed.data === undefined || typeof parsed.data === 'boolean') continue;
      if (name === 'THREADLAB_DATA_DIR') continue;
      const row = table.split('\n').find((line) => new RegExp(`^\\| \`${name}\` *\\|`).test(line));
      expect(row, name).toContain(`\`${String(parsed.data)}\``);
    }
  });
});
