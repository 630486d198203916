import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadHash } from '../../src/governance/audit/audit-record.js';

/** A web thread's key as the web chat builds it (adapters/web/map-request.ts). */
export const webKey = (id: string): string => `web:local:web:${id}`;

/**
 * Lays out, under `dataDir`, the data the bot keeps for a thread: its host files (`data.csv`, 5 bytes),
 * saved state (`.threadlab/state/state.dill`, 7 bytes, and meta), and for a web thread its history (2
 * messages, one naming an upload blob). `ageMs` back-dates every file.
 */
export function seedThread(dataDir: string, key: string, options: { webId?: string; ageMs?: number } = {}): void {
  const root = join(dataDir, 'sandbox-files', threadHash(key));
  mkdirSync(join(root, '.threadlab', 'state'), { recursive: true });
  writeFileSync(join(root, 'data.csv'), 'a,b\n1');
  writeFileSync(join(root, '.threadlab', 'state', 'state.dill'), 'pickled');
  writeFileSync(join(root, '.threadlab', 'state', 'meta.json'), '{}');
  const paths = [root, join(root, 'data.csv'), join(root, '.threadlab'), join(root, '.threadlab', 'state')];
  paths.push(join(root, '.threadlab', 'state', 'state.dill'), join(root, '.threadlab', 'state', 'meta.json'));
  if (options.webId) {
    const id = options.webId;
    const web = join(dataDir, 'web');
    const thread = join(web, 'threads', id);
    mkdirSync(thread, { recursive: true });
    mkdirSync(join(web, 'blobs'), { recursive: true });
    const at = Date.now() - (options.ageMs ?? 0);
    writeFileSync(join(thread, 'thread.json'), JSON.stringify({ id, title: 't', createdAtMs: at, updatedAtMs: at }));
    const blob = `blob-${id}`;
    const user = { id: 'm1', threadId: id, role: 'user', createdAtMs: at, text: 'hi', attachments: [{ id: blob }] };
    const bot = { id: 'm2', threadId: id, role: 'bot', createdAtMs: at, text: 'hello' };
    writeFileSync(join(thread, 'messages.jsonl'), `${JSON.stringify(user)}\n${JSON.stringify(bot)}\n`);
    writeFileSync(join(web, 'blobs', blob), 'upload');
    writeFileSync(join(web, 'blobs', `${blob}.json`), '{}');
  }
  if (options.ageMs) {
    const when = (Date.now() - options.ageMs) / 1000;
    for (const p of paths.reverse()) utimesSync(p, when, when);
  }
}

/** Every file under `dir`, relative, sorted (to compare what a purge left). */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, prefix: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
      else out.push(`${prefix}${e.name}`);
    }
  };
  walk(dir, '');
  return out.sort();
}
