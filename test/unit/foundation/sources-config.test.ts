import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { sourceAllows } from '../../../src/config/source-access.js';
import { MAX_SOURCES, MAX_SOURCES_FILE_BYTES, SOURCE_DEFAULTS } from '../../../src/config/sources.js';

const dir = mkdtempSync(join(tmpdir(), 'threadlab-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** Writes `content` (JSON of it unless a string) to a fresh file; its path. */
function file(content: unknown): string {
  const path = join(dir, `sources-${(n += 1)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const sales = {
  name: 'sales',
  kind: 'postgres',
  url: 'postgres://reader@db.example:5432/sales',
  passwordEnv: 'SALES_PW',
};
const PW = 'hunter2-but-longer';

function problem(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected loadConfig to throw');
}

describe('THREADLAB_SOURCES_FILE', () => {
  it('unset: no sources', () => {
    expect(loadConfig({}).sources).toEqual([]);
  });

  it('reads a source with its defaults; the password joins the secrets, never the URL', () => {
    const config = loadConfig({ THREADLAB_SOURCES_FILE: file({ sources: [sales] }), SALES_PW: PW });
    expect(config.sources).toEqual([
      {
        name: 'sales',
        kind: 'postgres',
        allow: {},
        limits: { statementTimeoutMs: 30_000, maxRows: 100_000, maxBytes: 100 * 1024 * 1024 },
        maxConnections: SOURCE_DEFAULTS.maxConnections,
        connection: { connectionString: 'postgres://reader@db.example:5432/sales', password: PW },
      },
    ]);
    expect(config.secrets).toEqual(expect.arrayContaining([PW, `postgres://reader:${PW}@db.example:5432/sales`]));
  });

  it('takes the password from a file, and ${NAME} placeholders from the environment', () => {
    const pwFile = file(`${PW}\n`);
    const config = loadConfig({
      THREADLAB_SOURCES_FILE: file({
        sources: [{ name: 'a', kind: 'postgres', url: 'postgresql://${DB_USER}@${DB_HOST}/a', passwordFile: pwFile }],
      }),
      DB_USER: 'reader',
      DB_HOST: 'db.internal',
    });
    expect(config.sources[0]?.connection).toEqual({
      connectionString: 'postgresql://reader@db.internal/a',
      password: PW,
    });
    const viaUrl = loadConfig({
      THREADLAB_SOURCES_FILE: file({
        sources: [{ name: 'b', kind: 'postgres', url: 'postgres://reader:${B_PW}@h/b' }],
      }),
      B_PW: PW,
    });
    expect(viaUrl.sources[0]?.connection).toEqual({ connectionString: 'postgres://reader@h/b', password: PW });
    expect(viaUrl.secrets).toContain(PW);
  });

  it('refuses a plain password, saying where it goes instead, naming the file and the field', () => {
    const path = file({ sources: [{ ...sales, password: 'plain' }] });
    const message = problem({ THREADLAB_SOURCES_FILE: path, SALES_PW: PW });
    expect(message).toContain(
      `THREADLAB_SOURCES_FILE (${path}): sources[0] ("sales").password: a password never goes in this file`,
    );
    expect(message).toMatch(/passwordEnv.*passwordFile/);
    const inUrl = problem({
      THREADLAB_SOURCES_FILE: file({ sources: [{ ...sales, url: 'postgres://reader:plain-pw@h/db' }] }),
      SALES_PW: PW,
    });
    expect(inUrl).toMatch(/sources\[0\] \("sales"\)\.url: a password never goes in this file/);
    expect(inUrl).not.toContain('plain-pw');
  });

  it.each([
    [{ sources: [{ ...sales, name: 'bad name' }] }, /sources\[0\] \("bad name"\)\.name: expected an identifier/],
    [{ sources: [{ ...sales, kind: 'mysql' }] }, /sources\[0\] \("sales"\)\.kind/],
    [{ sources: [sales, { ...sales }] }, /sources\[1\] \("sales"\)\.name: "sales" is declared twice/],
    [{ sources: [{ ...sales, maxRows: 0 }] }, /\.maxRows/],
    [{ sources: [{ ...sales, allow: { places: 'slack:U0NOTAPLACE' } }] }, /\.allow\.places: "slack:U0NOTAPLACE"/],
    [
      { sources: [{ ...sales, passwordEnv: 'UNSET_PW' }] },
      /\.passwordEnv: the environment variable UNSET_PW is not set/,
    ],
    [{ sources: [{ ...sales, url: 'postgres://${NOPE}@h/db' }] }, /\.url: the environment variable NOPE is not set/],
    [{ sources: [{ ...sales, passwordFile: '/nonexistent/pw' }] }, /passwordEnv, passwordFile: give one of them/],
    [
      { sources: [{ ...sales, passwordEnv: undefined, passwordFile: '/nonexistent/pw' }] },
      /passwordFile: cannot read \/nonexistent\/pw \(ENOENT\)/,
    ],
    [
      { sources: Array.from({ length: MAX_SOURCES + 1 }, (_, i) => ({ ...sales, name: `s${i}` })) },
      new RegExp(`at most ${MAX_SOURCES} sources`),
    ],
    ['{ not json', /not valid JSON/],
    [{ sources: [sales], extra: 1 }, /extra/],
  ])('a bad file fails start naming the file and the field (%#)', (content, words) => {
    const path = file(content);
    const message = problem({ THREADLAB_SOURCES_FILE: path, SALES_PW: PW });
    expect(message).toContain(`THREADLAB_SOURCES_FILE (${path})`);
    expect(message).toMatch(words);
  });

  it('a missing or oversized file is named', () => {
    expect(problem({ THREADLAB_SOURCES_FILE: join(dir, 'missing.json') })).toMatch(
      /missing\.json\): cannot read the file \(ENOENT\)/,
    );
    const big = file(' '.repeat(MAX_SOURCES_FILE_BYTES + 1));
    expect(problem({ THREADLAB_SOURCES_FILE: big })).toMatch(/larger than/);
  });
});

describe('sourceAllows', () => {
  const config = loadConfig({
    THREADLAB_SOURCES_FILE: file({
      sources: [
        { ...sales, allow: { places: 'slack:T0TEAM,discord:*', users: 'slack:U0ANNA,discord:123456789012345678' } },
      ],
    }),
    SALES_PW: PW,
  });
  const allow = config.sources[0]!.allow;
  it('matches the place or any id it goes by, and the user or a role', () => {
    expect(sourceAllows(allow, { platform: 'slack', user: 'U0ANNA', place: 'C0CHAN', places: ['T0TEAM'] })).toBe(true);
    expect(sourceAllows(allow, { platform: 'slack', user: 'U0ANNA', place: 'C0CHAN' })).toBe(false);
    expect(sourceAllows(allow, { platform: 'slack', user: 'U0BOB', place: 'T0TEAM' })).toBe(false);
    expect(sourceAllows(allow, { platform: 'discord', user: '1', place: '2', roles: ['123456789012345678'] })).toBe(
      true,
    );
    expect(sourceAllows(allow, { platform: 'discord', user: '1', place: '2' })).toBe(false);
    expect(sourceAllows(allow, { platform: 'web', user: 'local', place: 'thread' })).toBe(true);
  });
});
