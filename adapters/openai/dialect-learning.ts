import { OMITTABLE, type Dialect, type OmittableField } from './dialect.js';
import type { ServerError } from './error-body.js';

/** What one refusal teaches about a server: a change after which the same request may succeed. */
export type Lesson =
  | { kind: 'omit'; field: OmittableField }
  | { kind: 'max-completion-tokens' }
  | { kind: 'reasoning-back' }
  | { kind: 'no-user-after-tool' }
  | { kind: 'no-stream-with-tools' }
  | { kind: 'api-key' };

/** What the refused request carried, so a lesson is only drawn about something that was sent. */
export interface SentRequest {
  fields: ReadonlySet<string>;
  /** A user message right after a tool message. */
  userAfterTool: boolean;
  /** Assistant messages with thinking that was not sent back. */
  reasoningHeld: boolean;
}

const REFUSED =
  /unsupported|not supported|does not support|doesn't support|not allowed|unrecognized|unknown|invalid|only the default|extra inputs|not permitted/i;

/** True when the server says it cannot take tools at all (no retry without them helps a tool loop). */
export function refusesTools(e: ServerError): boolean {
  return (
    /does not support tools/i.test(e.message) || // Ollama: "<model> does not support tools"
    /tool choice requires --enable-auto-tool-choice/i.test(e.message) || // vLLM without the flag
    /tools? param(eter)? requires --jinja/i.test(e.message) || // llama-server without --jinja
    /(function|tool)[ _-]?call(ing|s)? (is |are )?not (supported|enabled|available)/i.test(e.message) ||
    /does not support (function|tool)[ _-]?call/i.test(e.message) ||
    /no endpoints found that support tool use/i.test(e.message) || // OpenRouter: no provider of the model takes tools
    /\btools?\b.{0,40}\b(not supported|unsupported)\b/i.test(e.message)
  );
}

const mentions = (e: ServerError, field: string): boolean =>
  e.param === field || new RegExp(`['"\`]?\\b${field}\\b['"\`]?`, 'i').test(e.message);

/**
 * The lesson of a refused request, when the refusal names something the request can do without or do
 * differently; undefined when it does not (the refusal then reaches the user with its reason). Only
 * lessons that change `dialect` are returned, so a request is never retried unchanged.
 */
export function lessonOf(status: number, e: ServerError, sent: SentRequest, dialect: Dialect): Lesson | undefined {
  if (status === 401 || status === 403) {
    const azureWords = /api-key|subscription key|wrong API endpoint/i.test(e.message);
    return azureWords && dialect.auth === 'bearer' ? { kind: 'api-key' } : undefined;
  }
  // llama-server before streamed tool calls: a 500 for tools with stream: true.
  if (
    sent.fields.has('tools') &&
    sent.fields.has('stream') &&
    dialect.streamWithTools &&
    /cannot use tools with stream/i.test(e.message)
  )
    return { kind: 'no-stream-with-tools' };
  if (status !== 400 && status !== 422) return undefined;
  if (
    sent.fields.has('max_tokens') &&
    dialect.maxTokensField === 'max_tokens' &&
    mentions(e, 'max_tokens') &&
    /max_completion_tokens/.test(e.message)
  )
    return { kind: 'max-completion-tokens' };
  if (sent.userAfterTool && !dialect.noUserAfterTool && /role .?user.? after role .?tool/i.test(e.message))
    return { kind: 'no-user-after-tool' };
  if (sent.reasoningHeld && !dialect.reasoningBack && /reasoning_content|reasoning/i.test(e.message))
    if (/pass(ed)? back|must be|required|missing/i.test(e.message)) return { kind: 'reasoning-back' };
  for (const field of OMITTABLE) {
    if (!sent.fields.has(field) || dialect.omit.has(field)) continue;
    if (mentions(e, field) && (e.param === field || REFUSED.test(e.message))) return { kind: 'omit', field };
  }
  return undefined;
}

/** Applies a lesson to the dialect; returns a line for the log. */
export function learn(dialect: Dialect, lesson: Lesson): string {
  switch (lesson.kind) {
    case 'omit':
      dialect.omit.add(lesson.field);
      return `leaving out ${lesson.field}, which this server refuses`;
    case 'max-completion-tokens':
      dialect.maxTokensField = 'max_completion_tokens';
      return 'sending max_completion_tokens instead of max_tokens';
    case 'reasoning-back':
      dialect.reasoningBack = true;
      return "sending the model's thinking back, as this server requires";
    case 'no-user-after-tool':
      dialect.noUserAfterTool = true;
      return 'putting a short assistant turn between tool results and the next user message';
    case 'no-stream-with-tools':
      dialect.streamWithTools = false;
      return 'not streaming requests that carry tools, which this server refuses';
    case 'api-key':
      dialect.auth = 'api-key';
      return 'sending the key in the api-key header (Azure)';
  }
}
