import { z } from 'zod';

/**
 * The building blocks of the configuration schema: value types whose error messages say what is
 * expected, and `v`/`section`, which tie each environment variable to the one field it fills.
 */

const range = (kind: string, min: number, max: number) => `expected ${kind} between ${min} and ${max}`;

/** An integer from a string, within [min, max]. */
export const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: range('an integer', min, max) })
    .int({ error: range('an integer', min, max) })
    .min(min, { error: range('an integer', min, max) })
    .max(max, { error: range('an integer', min, max) });

/** A number from a string, within [min, max]. */
export const num = (min: number, max: number) =>
  z.coerce
    .number({ error: range('a number', min, max) })
    .min(min, { error: range('a number', min, max) })
    .max(max, { error: range('a number', min, max) });

/** true/false, 1/0, yes/no, on/off. */
export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'expected true or false' })
  .transform((value) => ['true', '1', 'yes', 'on'].includes(value));

/** An absolute http(s) URL. */
export const url = z.url({
  protocol: /^https?$/,
  error: 'expected an absolute http(s) URL such as http://127.0.0.1:8080/v1',
});

/** A token with a known prefix (`xoxb-…`). */
export const prefixed = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9-]{8,}$`), { error: `expected ${what} starting with "${prefix}"` });

/** Mebibytes to bytes. */
export const mib = (value: number): number => Math.floor(value * 1024 * 1024);

/** One environment variable: its name, its schema, and how its value becomes the field's (units). */
export interface Var<T> {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly map: (raw: never) => T;
}

/** Declares the environment variable `name` that fills a field; `map` converts units (MB → bytes). */
export function v<S extends z.ZodType>(name: string, schema: S): Var<z.output<S>>;
export function v<S extends z.ZodType, T>(name: string, schema: S, map: (raw: z.output<S>) => T): Var<T>;
export function v(name: string, schema: z.ZodType, map: (raw: never) => unknown = (raw) => raw): Var<unknown> {
  return { name, schema, map };
}

/** The parsed shape of a section: each field's type after its `map`. */
export type SectionOf<T extends Record<string, Var<unknown>>> = {
  [K in keyof T]: T[K] extends Var<infer R> ? R : never;
};

/** The schemas of a section's variables, keyed by variable name (for the one env schema). */
export function envShape(fields: Record<string, Var<unknown>>): Record<string, z.ZodType> {
  return Object.fromEntries(Object.values(fields).map((field) => [field.name, field.schema]));
}

/** Fills a section's fields from the parsed environment. */
export function readSection<T extends Record<string, Var<unknown>>>(
  fields: T,
  env: Record<string, unknown>,
): SectionOf<T> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields))
    out[key] = (field.map as (raw: unknown) => unknown)(env[field.name]);
  return out as SectionOf<T>;
}
