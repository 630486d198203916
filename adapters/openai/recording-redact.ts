import { createHash } from 'node:crypto';
import { redactUrlCredentials } from '../../src/domain/endpoint-url.js';

/**
 * What a recording leaves out, applied the same way to what is recorded and to what `threadlab replay` compares
 * with it: credentials always (headers that carry keys, URL credentials, every configured secret wherever it
 * appears), and file contents unless kept (the previews of the thread's data files in the system prompt, images
 * given to the model). A left-out part is replaced by its size and a hash, so a changed file still shows.
 */

export const REDACTED = '[REDACTED]';

/** Header names whose values are credentials: OpenAI's Bearer token, Azure's and Gemini's key headers, cookies. */
const SECRET_HEADER =
  /^(authorization|proxy-authorization|api-key|x-api-key|x-goog-api-key|cookie|set-cookie)$|key|token|secret/i;
/** Headers that describe the transport, not the exchange (the body is recorded decoded, its length recomputed). */
const TRANSPORT_HEADER = /^(content-length|content-encoding|transfer-encoding|connection|keep-alive)$/i;

/** The header section of a recorded request or response: credentials replaced, transport headers dropped. */
export function recordedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (TRANSPORT_HEADER.test(name)) return;
    out[name] = SECRET_HEADER.test(name) ? REDACTED : value;
  });
  return out;
}

/** `text` with every secret (as is and JSON-escaped) and any URL credential replaced by `[REDACTED]`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out = out.split(escaped).join(REDACTED);
  }
  return redactUrlCredentials(out);
}

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The heading of the system prompt's file section (src/interpreter/system-prompt.ts describeFiles). */
const FILES_HEADING = 'Files in /mnt/data (previews computed in the sandbox):';

/**
 * The system prompt with each file's preview (its indented lines under `- /mnt/data/…`) replaced by one line
 * giving its size and hash: previews are the uploaded data itself (first rows, columns, JSON structure).
 */
export function leaveOutPreviews(prompt: string): string {
  const start = prompt.indexOf(FILES_HEADING);
  if (start < 0) return prompt;
  const head = prompt.slice(0, start + FILES_HEADING.length);
  const lines = prompt.slice(start + FILES_HEADING.length).split('\n');
  const out: string[] = [];
  let held: string[] = [];
  let inSection = true;
  const flush = (): void => {
    if (held.length === 0) return;
    const preview = held.join('\n');
    out.push(`  [preview left out of the recording: ${preview.length} characters, sha256 ${hashOf(preview)}]`);
    held = [];
  };
  for (const [i, line] of lines.entries()) {
    if (i === 0 || !inSection) {
      out.push(line);
      continue;
    }
    if (line.startsWith('  ')) {
      held.push(line);
      continue;
    }
    flush();
    if (!line.startsWith('- ')) inSection = false;
    out.push(line);
  }
  flush();
  return head + out.join('\n');
}

/** A `data:` URL of an image replaced by its media type, size and hash. */
function leaveOutDataUrl(url: string): string {
  const match = /^data:([^;,]{1,100})(;base64)?,/.exec(url);
  if (!match) return url;
  const data = url.slice(match[0].length);
  return `${match[0]}[left out of the recording: ${data.length} characters, sha256 ${hashOf(data)}]`;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Walks a message's content: a text prompt's previews and each image part's data. */
function leaveOutContent(content: Json, role: Json): Json {
  if (typeof content === 'string') return role === 'system' ? leaveOutPreviews(content) : content;
  if (!Array.isArray(content)) return content;
  return content.map((part) => {
    if (!part || typeof part !== 'object' || Array.isArray(part)) return part;
    if (part.type === 'text' && typeof part.text === 'string' && role === 'system')
      return { ...part, text: leaveOutPreviews(part.text) };
    const image = part.image_url;
    if (part.type === 'image_url' && image && typeof image === 'object' && !Array.isArray(image)) {
      if (typeof image.url === 'string') return { ...part, image_url: { ...image, url: leaveOutDataUrl(image.url) } };
    }
    return part;
  });
}

/** A Chat Completions request body with file contents left out of its messages (anything else as is). */
export function leaveOutFiles(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const { messages } = body as { messages?: unknown };
  if (!Array.isArray(messages)) return body;
  return {
    ...body,
    messages: (messages as Json[]).map((m) => {
      if (!m || typeof m !== 'object' || Array.isArray(m) || !('content' in m)) return m;
      return { ...m, content: leaveOutContent(m.content ?? null, m.role ?? null) };
    }),
  };
}

/**
 * A request body as recorded: parsed JSON with file contents left out unless `keepFiles`; a body that is not
 * JSON (the client sends none such to Chat Completions) is left out with its size.
 */
export function recordedBody(raw: string | undefined, keepFiles: boolean): unknown {
  if (raw === undefined || raw === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return `[a body that is not JSON, ${raw.length} characters, left out]`;
  }
  return keepFiles ? parsed : leaveOutFiles(parsed);
}
