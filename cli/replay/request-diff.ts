import { redactUrlCredentials } from '../../src/domain/endpoint-url.js';
import { recordedBody, recordedHeaders } from '../../adapters/openai/recording-redact.js';
import type { RequestLine } from '../../adapters/openai/recording-format.js';
import type { ReceivedRequest } from './replay-server.js';

/** A request reduced to what replay compares: the call, how the key is sent, and the body. */
export interface ComparedRequest {
  call: string;
  /** Which header carries the key (`authorization`, `api-key`) or `none`: part of the server's dialect. */
  auth: string;
  body: unknown;
}

/**
 * What differs between runs of the same turn without being a difference of the code: a run's duration in its
 * tool result (`status: ok (412 ms, run #1)`, src/interpreter/tool-result.ts), and the tag of the sandbox image in
 * the system prompt (a hash of the image's definition; the packages it offers are still compared).
 */
const VOLATILE: Array<[RegExp, string]> = [
  [/\((\d+) ms, run #(\d+)/g, '(… ms, run #$2'],
  [/(read from sandbox image )[\w.-]{1,128}\)/g, '$1…)'],
];

function steady(body: unknown): unknown {
  let text = JSON.stringify(body ?? null);
  for (const [pattern, replacement] of VOLATILE) text = text.replace(pattern, replacement);
  return JSON.parse(text) as unknown;
}

function urlText(url: string): string {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // A malformed escape is compared as sent.
  }
  return redactUrlCredentials(decoded);
}

function authOf(headers: Record<string, string>): string {
  return ['authorization', 'api-key', 'x-api-key'].filter((h) => h in headers).join('+') || 'none';
}

/** A recorded request, as compared. */
export function comparedRecorded(line: RequestLine): ComparedRequest {
  return { call: `${line.method} ${urlText(line.url)}`, auth: authOf(line.headers), body: steady(line.body) };
}

/** A request today's code sent, redacted and left out exactly as the recording was. */
export function comparedToday(request: ReceivedRequest, keepFiles: boolean): ComparedRequest {
  return {
    call: `${request.method.toUpperCase()} ${urlText(request.url)}`,
    auth: authOf(recordedHeaders(request.headers)),
    body: steady(recordedBody(request.body, keepFiles)),
  };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** At most `max` characters of a value, on one line. */
function short(value: unknown, max = 160): string {
  if (value === undefined) return '(absent)';
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Where two texts part: a window around the first differing character of each. */
function whereTextsPart(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  const cut = (t: string): string => JSON.stringify(`${from > 0 ? '…' : ''}${t.slice(from, i + 80)}`);
  return `from character ${i}: recorded ${cut(a)}, now ${cut(b)}`;
}

type Message = { role?: unknown; content?: unknown; [key: string]: unknown };
const asMessages = (body: unknown): Message[] =>
  Array.isArray((body as { messages?: unknown })?.messages) ? ((body as { messages: Message[] }).messages ?? []) : [];
const label = (m: Message, i: number): string => `[${i}] ${typeof m.role === 'string' ? m.role : '?'}`;

function messageLines(recorded: Message[], today: Message[]): string[] {
  const lines: string[] = [];
  const n = Math.max(recorded.length, today.length);
  for (let i = 0; i < n; i++) {
    const r = recorded[i];
    const t = today[i];
    if (r && !t) lines.push(`  - ${label(r, i)} (removed): ${short(r.content ?? r)}`);
    else if (!r && t) lines.push(`  + ${label(t, i)} (added): ${short(t.content ?? t)}`);
    else if (r && t && !same(r, t)) {
      const rs = JSON.stringify(r);
      const ts = JSON.stringify(t);
      const part =
        typeof r.content === 'string' && typeof t.content === 'string' && r.content !== t.content
          ? whereTextsPart(r.content, t.content)
          : whereTextsPart(rs, ts);
      lines.push(`  ~ ${label(t, i)} (changed) ${part}`);
    }
  }
  return lines.length > 0 ? [`messages: ${recorded.length} recorded, ${today.length} now`, ...lines] : [];
}

type Tool = { function?: { name?: unknown } };
function toolLines(recorded: unknown, today: unknown): string[] {
  const named = (tools: unknown): Map<string, unknown> =>
    new Map(
      (Array.isArray(tools) ? (tools as Tool[]) : []).map((t, i) => [String(t.function?.name ?? `#${i}`), t] as const),
    );
  const r = named(recorded);
  const t = named(today);
  const lines: string[] = [];
  for (const [name, tool] of r) {
    if (!t.has(name)) lines.push(`  - ${name} (removed)`);
    else if (!same(tool, t.get(name)))
      lines.push(`  ~ ${name} (changed) ${whereTextsPart(JSON.stringify(tool), JSON.stringify(t.get(name)))}`);
  }
  for (const name of t.keys()) if (!r.has(name)) lines.push(`  + ${name} (added)`);
  return lines.length > 0 ? ['tools:', ...lines] : [];
}

function parameterLines(recorded: unknown, today: unknown): string[] {
  const r = (recorded && typeof recorded === 'object' ? recorded : {}) as Record<string, unknown>;
  const t = (today && typeof today === 'object' ? today : {}) as Record<string, unknown>;
  const names = [...new Set([...Object.keys(r), ...Object.keys(t)])].filter((k) => k !== 'messages' && k !== 'tools');
  const lines = names
    .filter((k) => !same(r[k], t[k]))
    .map((k) => `  ${k}: recorded ${short(r[k], 80)}, now ${short(t[k], 80)}`);
  return lines.length > 0 ? ['parameters:', ...lines] : [];
}

/** The differences between one recorded request and today's, as readable lines; empty when they are the same. */
export function requestDifferences(recorded: ComparedRequest, today: ComparedRequest): string[] {
  const lines: string[] = [];
  if (recorded.call !== today.call) lines.push(`request: recorded ${recorded.call}, now ${today.call}`);
  if (recorded.auth !== today.auth) lines.push(`key sent in: recorded ${recorded.auth}, now ${today.auth}`);
  if (typeof recorded.body !== 'object' || typeof today.body !== 'object') {
    if (!same(recorded.body, today.body))
      lines.push(`body: recorded ${short(recorded.body)}, now ${short(today.body)}`);
    return lines;
  }
  const r = recorded.body as Record<string, unknown> | null;
  const t = today.body as Record<string, unknown> | null;
  return [
    ...lines,
    ...parameterLines(r, t),
    ...toolLines(r?.tools, t?.tools),
    ...messageLines(asMessages(r), asMessages(t)),
  ];
}

/** The first request where today differs from the recording, or undefined when every one is the same. */
export function firstDifference(
  recorded: ComparedRequest[],
  today: ComparedRequest[],
): { index: number; lines: string[] } | undefined {
  const n = Math.max(recorded.length, today.length);
  for (let i = 0; i < n; i++) {
    const r = recorded[i];
    const t = today[i];
    if (r && !t)
      return {
        index: i,
        lines: [`not sent today: the turn ended after ${today.length} requests (recorded: ${r.call})`],
      };
    if (!r && t) return { index: i, lines: [`not in the recording: today's turn sent it (${t.call})`] };
    const lines = requestDifferences(r!, t!);
    if (lines.length > 0) return { index: i, lines };
  }
  return undefined;
}
