import pino, { type Logger } from 'pino';
import { redactUrlCredentials } from './domain/endpoint-url.js';

export type { Logger };

/** Log keys whose values are never written, wherever they appear in an object. */
const REDACT_PATHS = [
  'token',
  'apiKey',
  'api_key',
  'password',
  'secret',
  'signingSecret',
  'authorization',
  'Authorization',
  '*.token',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.secret',
  '*.signingSecret',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.headers.authorization',
];

/** Token shapes of the platforms we talk to, scrubbed even when they arrive inside free text. */
const TOKEN_PATTERNS = [
  /xox[abposr]-[A-Za-z0-9-]+/g,
  /xapp-[A-Za-z0-9-]+/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bBot [\w-]{20,}\.[\w-]+\.[\w-]+/g,
];

function scrubber(secrets: string[]): (text: string) => string {
  const sorted = [...new Set(secrets)].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of sorted) out = out.split(secret).join('[REDACTED]');
    for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, '[REDACTED]');
    return redactUrlCredentials(out);
  };
}

function scrubDeep(value: unknown, scrub: (s: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    // The cause chain is where the bug is: a converted `internal` error's own stack is the converter's.
    const extra = value as { code?: unknown; details?: unknown; errors?: unknown };
    return {
      type: value.name,
      message: scrub(value.message),
      stack: value.stack ? scrub(value.stack) : undefined,
      code: extra.code,
      ...(extra.details !== undefined ? { details: scrubDeep(extra.details, scrub, depth + 1) } : {}),
      ...(value.cause !== undefined ? { cause: scrubDeep(value.cause, scrub, depth + 1) } : {}),
      ...(Array.isArray(extra.errors) ? { errors: scrubDeep(extra.errors.slice(0, 5), scrub, depth + 1) } : {}),
    };
  }
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, scrub, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubDeep(v, scrub, depth + 1);
  return out;
}

export interface LoggerOptions {
  level?: string;
  /** Secret values (tokens, keys) to replace with [REDACTED] in every log line. */
  secrets?: string[];
  pretty?: boolean;
  /** Where lines go. @defaultValue stderr, so CLI output on stdout stays clean. */
  destination?: pino.DestinationStream;
}

/**
 * The one logger factory. Children carry `{ platform, thread, job, container }`; tokens and keys are
 * redacted by key name and by value.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const scrub = scrubber(options.secrets ?? []);
  const destination = options.destination ?? pino.destination({ fd: 2, sync: true });
  return pino(
    {
      level: options.level ?? 'info',
      base: { name: 'threadlab' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      // Errors were already turned into scrubbed plain objects (with their cause chain) by the hook
      // below; pino's own serializer would flatten that chain into one string and lose the type.
      serializers: { err: (value: unknown) => (value instanceof Error ? scrubDeep(value, scrub) : value) },
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((a) => scrubDeep(a, scrub)) as Parameters<typeof method>;
          method.apply(this, cleaned);
        },
      },
    },
    destination,
  );
}
