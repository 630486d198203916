import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestSpecification } from 'vitest/node';
import { describe, expect, it } from 'vitest';
import SlowFirstSequencer, { SLOW_FILES } from '../../setup/slow-first-sequencer.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PROJECTS = ['unit', 'integration', 'integration-runsc', 'e2e', 'timing'];

/** What the sequencer reads of a vitest specification: its project (name, root, group order) and its path. */
function spec(project: string, path: string, groupOrder: number): TestSpecification {
  return {
    project: { name: project, config: { root: ROOT, sequence: { groupOrder } } },
    moduleId: join(ROOT, path),
  } as unknown as TestSpecification;
}

/** Vitest's context as BaseSequencer reads it, with no cached durations (a clean clone): sizes decide. */
const cleanClone = {
  config: { root: ROOT },
  cache: {
    getFileTestResults: () => undefined,
    getFileStats: (key: string) => ({ size: key.length }),
  },
};

describe('SlowFirstSequencer', () => {
  it('lists files that exist, in projects that exist', () => {
    for (const entry of SLOW_FILES) {
      const [project, path] = entry.split(':') as [string, string];
      expect(PROJECTS, entry).toContain(project);
      expect(existsSync(join(ROOT, path)), entry).toBe(true);
    }
  });

  it('starts the listed files first, in list order, within their group; the others keep the default order', async () => {
    const [firstProject, firstPath] = SLOW_FILES[0]!.split(':') as [string, string];
    const [secondProject, secondPath] = SLOW_FILES[1]!.split(':') as [string, string];
    const files = [
      spec('unit', 'test/unit/a.test.ts', 0),
      spec('e2e', 'test/e2e/x.test.ts', 1),
      spec(secondProject, secondPath, 1),
      spec('integration', 'test/integration/y.test.ts', 1),
      spec(firstProject, firstPath, 1),
    ];
    const sorted = await new SlowFirstSequencer(cleanClone as never).sort(files);
    expect(sorted.map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length)}`)).toEqual([
      'unit:test/unit/a.test.ts',
      SLOW_FILES[0],
      SLOW_FILES[1],
      'e2e:test/e2e/x.test.ts',
      'integration:test/integration/y.test.ts',
    ]);
  });
});
