import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import type { SourceLimits } from '../ports/data-sources.js';
import { parseAllowlist } from './access-lists.js';
import type { SourceAllow } from './source-access.js';

/** Sources one file may declare, so a configuration stays reviewable. */
export const MAX_SOURCES = 50;
/** The largest sources file read (it is a short JSON list). */
export const MAX_SOURCES_FILE_BYTES = 1024 * 1024;
/** The largest password file read. */
const MAX_PASSWORD_FILE_BYTES = 4096;

export const SOURCE_DEFAULTS = {
  statementTimeoutMs: 30_000,
  maxRows: 100_000,
  maxBytes: 100 * 1024 * 1024,
  maxConnections: 4,
} as const;

/** One source as the bot uses it: the connection resolved (password apart), limits filled in. */
export interface SourceSettings {
  name: string;
  kind: 'postgres';
  description?: string;
  allow: SourceAllow;
  limits: SourceLimits;
  /** Connections at most in the source's pool. @defaultValue 4 */
  maxConnections: number;
  /** `connectionString` never carries the password; `password` is apart, from the environment or a file. */
  connection: { connectionString: string; password?: string };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const PLACEHOLDER = /\$\{([^}]*)\}/g;
const accessList = (kind: 'place' | 'who') =>
  z.string().transform((text, ctx) => {
    try {
      return parseAllowlist(text, kind);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

const postgres = z
  .object({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,62}$/, { error: 'expected an identifier (letters, digits, _)' }),
    kind: z.literal('postgres'),
    url: z
      .string()
      .max(2000)
      .regex(/^postgres(ql)?:\/\//, { error: 'expected postgres://user@host:port/database' }),
    passwordEnv: z.string().regex(ENV_NAME, { error: 'expected an environment variable name' }).optional(),
    passwordFile: z.string().min(1).max(4096).optional(),
    description: z.string().max(500).optional(),
    allow: z
      .object({ places: accessList('place').optional(), users: accessList('who').optional() })
      .strict()
      .optional(),
    statementTimeoutMs: z.number().int().min(100).max(3_600_000).default(SOURCE_DEFAULTS.statementTimeoutMs),
    maxRows: z.number().int().min(1).max(10_000_000).default(SOURCE_DEFAULTS.maxRows),
    maxBytes: z
      .number()
      .int()
      .min(1024)
      .max(2 ** 31)
      .default(SOURCE_DEFAULTS.maxBytes),
    maxConnections: z.number().int().min(1).max(32).default(SOURCE_DEFAULTS.maxConnections),
  })
  .strict();

/** A discriminated union on `kind`: PostgreSQL first, room for others. */
const source = z.preprocess(
  (raw, ctx) => {
    // A plain password is refused before anything else, saying where it goes instead.
    if (raw && typeof raw === 'object' && 'password' in raw)
      ctx.addIssue({
        code: 'custom',
        path: ['password'],
        message:
          'a password never goes in this file: put it in an environment variable named by passwordEnv, or a file named by passwordFile',
      });
    return raw;
  },
  z.discriminatedUnion('kind', [postgres]),
);

const sourcesFile = z
  .object({ sources: z.array(source).max(MAX_SOURCES, { error: `at most ${MAX_SOURCES} sources` }) })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.sources.forEach((s, i) => {
      if (seen.has(s.name.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: ['sources', i, 'name'], message: `"${s.name}" is declared twice` });
      seen.add(s.name.toLowerCase());
    });
  });

type RawSource = z.output<typeof postgres>;

/** `sources[1] ("sales").url` from a zod path. */
function fieldOf(path: PropertyKey[], raw: unknown): string {
  const [, index, ...rest] = path;
  if (path[0] !== 'sources' || typeof index !== 'number') return path.map(String).join('.') || '(the file)';
  const name = (raw as { sources?: Array<{ name?: unknown }> })?.sources?.[index]?.name;
  return `sources[${index}]${typeof name === 'string' ? ` ("${name}")` : ''}${rest.map((p) => `.${String(p)}`).join('')}`;
}

/** Resolves `${NAME}` placeholders in the URL, refuses a literal password in it, and reads the password. */
function resolveConnection(s: RawSource, env: (name: string) => string | undefined): SourceSettings['connection'] {
  let passwordFromPlaceholder = false;
  const resolved = s.url.replace(PLACEHOLDER, (_, name: string) => {
    if (!ENV_NAME.test(name)) throw new Error(`url: \${${name}} is not an environment variable name`);
    const value = env(name);
    if (value === undefined || value === '') throw new Error(`url: the environment variable ${name} is not set`);
    return encodeURIComponent(value);
  });
  let parsed: URL;
  try {
    parsed = new URL(resolved);
  } catch {
    throw new Error('url: expected postgres://user@host:port/database');
  }
  if (parsed.password) {
    const literalPassword = /^postgres(ql)?:\/\/[^/@]*:([^@/]*)@/.exec(s.url)?.[2] ?? '';
    if (!/^\$\{[^}]+\}$/.test(literalPassword))
      throw new Error(
        'url: a password never goes in this file: take it out of the URL and put it in an environment variable named by passwordEnv, or a file named by passwordFile',
      );
    passwordFromPlaceholder = true;
  }
  if (s.passwordEnv && s.passwordFile) throw new Error('passwordEnv, passwordFile: give one of them, not both');
  let password = passwordFromPlaceholder ? decodeURIComponent(parsed.password) : undefined;
  if (s.passwordEnv) {
    password = env(s.passwordEnv);
    if (!password) throw new Error(`passwordEnv: the environment variable ${s.passwordEnv} is not set`);
  } else if (s.passwordFile) {
    password = readPasswordFile(s.passwordFile);
  }
  parsed.password = '';
  return { connectionString: parsed.toString(), ...(password ? { password } : {}) };
}

function readPasswordFile(path: string): string {
  try {
    if (statSync(path).size > MAX_PASSWORD_FILE_BYTES) throw new Error(`larger than ${MAX_PASSWORD_FILE_BYTES} bytes`);
    const text = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    if (!text) throw new Error('empty');
    return text;
  } catch (err) {
    throw new Error(
      `passwordFile: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/**
 * Reads and validates THREADLAB_SOURCES_FILE. Throws one Error whose message names the file and each bad field
 * (`sources[0] ("sales").url: …`); `env` reads the variables the file names (passwordEnv, `${NAME}` in a URL).
 * Returns the sources and every secret they resolved (passwords, and URLs with them), for the logger to scrub.
 */
export function loadSources(
  path: string,
  env: (name: string) => string | undefined,
): {
  sources: SourceSettings[];
  secrets: string[];
} {
  const fail = (what: string) => new Error(`THREADLAB_SOURCES_FILE (${path}): ${what}`);
  let raw: unknown;
  try {
    if (statSync(path).size > MAX_SOURCES_FILE_BYTES) throw fail(`larger than ${MAX_SOURCES_FILE_BYTES} bytes`);
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    if ((err as Error).message.startsWith('THREADLAB_SOURCES_FILE')) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw fail(code ? `cannot read the file (${code})` : `not valid JSON (${(err as Error).message})`);
  }
  const parsed = sourcesFile.safeParse(raw);
  if (!parsed.success) throw fail(parsed.error.issues.map((i) => `${fieldOf(i.path, raw)}: ${i.message}`).join('; '));
  const secrets: string[] = [];
  const sources = parsed.data.sources.map((s, i): SourceSettings => {
    let connection: SourceSettings['connection'];
    try {
      connection = resolveConnection(s, env);
    } catch (err) {
      throw fail(`${fieldOf(['sources', i], raw)}.${(err as Error).message}`);
    }
    if (connection.password) {
      const withPassword = new URL(connection.connectionString);
      withPassword.password = encodeURIComponent(connection.password);
      secrets.push(connection.password, encodeURIComponent(connection.password), withPassword.toString());
    }
    secrets.push(connection.connectionString);
    return {
      name: s.name,
      kind: s.kind,
      ...(s.description ? { description: s.description } : {}),
      allow: {
        ...(s.allow?.places ? { places: s.allow.places } : {}),
        ...(s.allow?.users ? { users: s.allow.users } : {}),
      },
      limits: { statementTimeoutMs: s.statementTimeoutMs, maxRows: s.maxRows, maxBytes: s.maxBytes },
      maxConnections: s.maxConnections,
      connection,
    };
  });
  return { sources, secrets: [...new Set(secrets)] };
}
