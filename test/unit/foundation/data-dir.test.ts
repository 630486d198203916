import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirLayout } from '../../../src/domain/data-dir.js';

describe('the data directory layout', () => {
  const layout = dataDirLayout('/data');

  it('keeps every path inside the data directory, each one different', () => {
    const paths = Object.values(layout);
    for (const path of paths) expect(relative('/data', path)).not.toMatch(/^\.\.|^\//);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('is the layout docs/administering.md describes to operators', () => {
    const doc = readFileSync('docs/administering.md', 'utf8');
    const section = doc.slice(doc.indexOf('## The data directory'), doc.indexOf('## Retention'));
    for (const path of Object.values(layout)) {
      const first = relative('/data', path).split('/')[0]!;
      expect(section, `docs/administering.md names ${first}`).toContain(`\`${first}`);
    }
  });
});
