import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Route } from './http-util.js';

const require = createRequire(import.meta.url);
const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'public');

/** The page's own files, served by name. */
const PAGE_FILES: Record<string, string> = {
  '/': 'index.html',
  '/app.js': 'app.js',
  '/api-client.js': 'api-client.js',
  '/render.js': 'render.js',
  '/figure-marks.js': 'figure-marks.js',
  '/progress.js': 'progress.js',
  '/composer.js': 'composer.js',
  '/edit.js': 'edit.js',
  '/approval.js': 'approval.js',
  '/drawer.js': 'drawer.js',
  '/lightbox.js': 'lightbox.js',
  '/thread-list.js': 'thread-list.js',
  '/sources-badge.js': 'sources-badge.js',
  '/base.css': 'base.css',
  '/frame.css': 'frame.css',
  '/messages.css': 'messages.css',
  '/tables.css': 'tables.css',
  '/progress.css': 'progress.css',
  '/composer.css': 'composer.css',
  '/message-actions.css': 'message-actions.css',
  '/fit.css': 'fit.css',
};

/** Languages the page highlights; each is an ES module in highlight.js's `es/languages`. */
export const HIGHLIGHT_LANGUAGES = [
  'python',
  'bash',
  'shell',
  'json',
  'javascript',
  'typescript',
  'sql',
  'plaintext',
  'xml',
  'css',
  'yaml',
  'markdown',
  'r',
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** Where each vendored browser module comes from, straight out of node_modules. */
function vendorFiles(): Record<string, () => Promise<string>> {
  const hljs = packageDir('highlight.js');
  // dompurify does not export its package.json; its main entry sits in dist/ beside the ES build.
  const purify = join(dirname(require.resolve('dompurify')), 'purify.es.mjs');
  const files: Record<string, () => Promise<string>> = {
    '/vendor/marked.js': () => readFile(join(packageDir('marked'), 'lib', 'marked.esm.js'), 'utf8'),
    '/vendor/purify.js': () => readFile(purify, 'utf8'),
    // highlight.js ships its core only as CommonJS (no require() inside): wrap it as an ES module.
    '/vendor/highlight.js': async () =>
      `const module = { exports: {} };\n${await readFile(join(hljs, 'lib', 'core.js'), 'utf8')}\nexport default module.exports;\n`,
    '/vendor/highlight.css': () => readFile(join(hljs, 'styles', 'github.css'), 'utf8'),
  };
  for (const lang of HIGHLIGHT_LANGUAGES) {
    files[`/vendor/hljs/${lang}.js`] = () => readFile(join(hljs, 'es', 'languages', `${lang}.js`), 'utf8');
  }
  return files;
}

/**
 * The page and its vendored modules. Nothing is fetched from outside: marked, DOMPurify and
 * highlight.js are read from node_modules on first request and kept in memory.
 */
export function staticRoutes(options: { cache?: boolean } = {}): Route[] {
  const cache = new Map<string, string>();
  const serve = (path: string, load: () => Promise<string>): Route => ({
    method: 'GET',
    pattern: path,
    handle: async ({ req, res }) => {
      let body = cache.get(path);
      if (body === undefined) {
        body = await load();
        if (options.cache !== false) cache.set(path, body);
      }
      const ext = path === '/' ? '.html' : path.slice(path.lastIndexOf('.'));
      res.writeHead(200, {
        'content-type': TYPES[ext] ?? 'application/octet-stream',
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': path.startsWith('/vendor/') ? 'public, max-age=86400' : 'no-cache',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
  });
  return [
    ...Object.entries(PAGE_FILES).map(([path, file]) => serve(path, () => readFile(join(PUBLIC_DIR, file), 'utf8'))),
    ...Object.entries(vendorFiles()).map(([path, load]) => serve(path, load)),
  ];
}
