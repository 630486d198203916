/**
 * The house's floors, checked on every import of the shipped code: src/ (the core) imports nothing above it;
 * adapters/ and sandbox/ (the edges) never import the composition root or the CLI; app/ (the composition root)
 * never imports the CLI; the CLI reaches the sandbox package only through app/sandbox-kit.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Every relative module a file imports (static, dynamic and type imports), as a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((spec) => relative(ROOT, resolve(ROOT, dirname(file), spec)));
}

const top = (path: string): string => path.split('/')[0]!;

/** What each top-level folder may not import. */
const FORBIDDEN: Record<string, string[]> = {
  src: ['app', 'adapters', 'sandbox', 'cli'],
  adapters: ['app', 'cli'],
  sandbox: ['app', 'cli', 'adapters'],
  app: ['cli'],
};

describe('layers: no import runs back up', () => {
  for (const [layer, forbidden] of Object.entries(FORBIDDEN)) {
    it(`${layer}/ imports nothing from ${forbidden.join(', ')}`, () => {
      const files = sourceFiles(layer);
      expect(files.length).toBeGreaterThan(0);
      const wrong = files.flatMap((file) =>
        importsOf(file)
          .filter((target) => forbidden.includes(top(target)))
          .map((target) => `${file} -> ${target}`),
      );
      expect(wrong).toEqual([]);
    });
  }

  it('the CLI reaches the sandbox package only through app/sandbox-kit.ts', () => {
    const wrong = sourceFiles('cli').flatMap((file) =>
      importsOf(file)
        .filter((target) => top(target) === 'sandbox')
        .map((target) => `${file} -> ${target}`),
    );
    expect(wrong).toEqual([]);
  });
});
