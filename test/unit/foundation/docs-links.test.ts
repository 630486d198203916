import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, `-` and `_` kept), spaces to `-`. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Markdown without fenced blocks (where a `# x` is no heading), and also without inline code (where `[x](y)` is no link). */
const withoutFences = (md: string): string => md.replace(/^```[\s\S]*?^```/gm, '');
const withoutCode = (md: string): string => withoutFences(md).replace(/`[^`\n]*`/g, '');

/** The anchors a Markdown file's headings make, numbered as GitHub numbers repeats (`x`, `x-1`…). */
export function anchorsOf(md: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(md).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = headingSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  return anchors;
}

/** Relative links and images of a Markdown text: `[text](target)` and `![alt](target)`, outside code. */
export function relativeLinks(md: string): string[] {
  return [...withoutCode(md).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//'));
}

/** What is wrong with each relative link of `file` (a path under the repository): a missing file or heading. */
export function brokenLinks(file: string, md: string, read: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(md)) {
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const targetFile = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    const text = read(targetFile);
    if (text === undefined) {
      broken.push(`${file}: ${target}: no file ${targetFile}`);
      continue;
    }
    if (anchor !== undefined && targetFile.endsWith('.md') && !anchorsOf(text).has(anchor))
      broken.push(`${file}: ${target}: no heading #${anchor} in ${targetFile}`);
  }
  return broken;
}

/** A file's text ('' for a directory or a binary such as a PNG), or undefined when nothing is there. */
function readRepo(path: string): string | undefined {
  const full = resolve(root, path);
  if (relative(root, full).startsWith('..') || !existsSync(full)) return undefined;
  return statSync(full).isFile() && full.endsWith('.md') ? readFileSync(full, 'utf8') : '';
}

describe("links in README.md, docs/ and the adapters' READMEs", () => {
  // The adapters' pages link into docs/ too, so they are checked with it.
  const adapterPages = ['adapters/slack/README.md', 'adapters/discord/README.md', 'adapters/web/API.md'];
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  it('every relative link points at a file that exists, and at a heading that exists', () => {
    expect(files.length).toBeGreaterThan(10);
    const broken = [...files, ...adapterPages].flatMap((file) => brokenLinks(file, readRepo(file)!, readRepo));
    expect(broken).toEqual([]);
  });

  it('every page of docs/ is linked from the README', () => {
    const linked = new Set(relativeLinks(readRepo('README.md')!).map((t) => t.split('#')[0]));
    expect(files.filter((f) => f !== 'README.md' && !linked.has(f))).toEqual([]);
  });

  it('finds a missing file, a missing heading and a link into a heading of the same page', () => {
    const pages: Record<string, string> = {
      'docs/a.md': '# A\n\n## Choosing a model: `threadlab eval`\n\n## Notes\n\n## Notes\n',
      'docs/b.md': [
        '# B',
        '[ok](a.md#choosing-a-model-threadlab-eval) [ok](a.md#notes-1) [ok](#b) [web](https://example.org/x)',
        '[gone](c.md) [no heading](a.md#notes-2) [no heading here](#nowhere) ![img](images/x.png)',
        '`[in code](nothing.md)`',
        '```',
        '[in a fence](nothing.md)',
        '```',
      ].join('\n'),
    };
    expect(brokenLinks('docs/b.md', pages['docs/b.md']!, (p) => pages[p])).toEqual([
      'docs/b.md: c.md: no file docs/c.md',
      'docs/b.md: a.md#notes-2: no heading #notes-2 in docs/a.md',
      'docs/b.md: #nowhere: no heading #nowhere in docs/b.md',
      'docs/b.md: images/x.png: no file docs/images/x.png',
    ]);
  });

  it('makes the anchors GitHub makes', () => {
    expect(headingSlug('"It did something odd with my model": record and replay')).toBe(
      'it-did-something-odd-with-my-model-record-and-replay',
    );
    expect(headingSlug('Network access (egress)')).toBe('network-access-egress');
    expect(headingSlug('Administering Threadlab → Retention')).toBe('administering-threadlab--retention');
  });
});
