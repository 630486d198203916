import type { Duplex } from 'node:stream';

/** A proxy request's head, as the sandbox sent it (every field a claim). */
export interface RequestHead {
  method: string;
  target: string;
  /** `1.0` or `1.1`. */
  version: string;
  /** In arrival order, names as sent. */
  headers: Array<[name: string, value: string]>;
  /** Bytes that arrived after the head (the start of a body, or of a tunnel's TLS handshake). */
  rest: Buffer;
}

/** Why no head could be read; `status` is the HTTP answer, or 0 when the client is already gone. */
export interface HeadFailure {
  status: number;
  reason: string;
}

export interface ReadHeadOptions {
  /** Largest head, request line and headers together. */
  maxBytes: number;
  /** Time the whole head may take to arrive. */
  timeoutMs: number;
  /** Most header lines. @defaultValue 100 */
  maxHeaders?: number;
}

const END = Buffer.from('\r\n\r\n');
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses a complete head (without the blank line); a string says what is wrong with it. */
export function parseHead(text: string, maxHeaders: number): Omit<RequestHead, 'rest'> | string {
  const lines = text.split('\r\n');
  const match = /^([A-Z]{1,20}) (\S{1,8192}) HTTP\/(1\.[01])$/.exec(lines[0] ?? '');
  if (!match) return 'the request line should read METHOD target HTTP/1.1';
  if (lines.length - 1 > maxHeaders) return `more than ${maxHeaders} header lines`;
  const headers: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    // Folded lines, stray CR/LF and NUL are how requests get smuggled past a proxy.
    if (colon <= 0 || !TOKEN.test(name) || /[\0\r\n]/.test(value))
      return `malformed header line "${line.slice(0, 60)}"`;
    headers.push([name, value]);
  }
  return { method: match[1]!, target: match[2]!, version: match[3]!, headers };
}

/**
 * Reads one request head from `client` within `maxBytes` and `timeoutMs`, then pauses the client and
 * leaves it to the caller with the bytes that came after the head. Never throws.
 */
export function readHead(client: Duplex, options: ReadHeadOptions): Promise<RequestHead | HeadFailure> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: RequestHead | HeadFailure) => {
      clearTimeout(timer);
      client.off('data', onData);
      client.off('end', onGone);
      client.off('close', onGone);
      client.pause();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ status: 408, reason: `the request head did not arrive within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    const onGone = () => finish({ status: 0, reason: 'the client closed before sending a request' });
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      // The terminator can straddle chunks: search from just before the new bytes.
      const from = Math.max(0, size - END.length + 1);
      chunks.push(bytes);
      size += bytes.length;
      const all = chunks.length === 1 ? bytes : Buffer.concat(chunks, size);
      const end = all.indexOf(END, from);
      if (end < 0 || end + END.length > options.maxBytes) {
        if (size > options.maxBytes)
          finish({ status: 431, reason: `the request head is larger than ${options.maxBytes} bytes` });
        else if (chunks.length > 1) chunks.splice(0, chunks.length, all);
        return;
      }
      const parsed = parseHead(all.subarray(0, end).toString('latin1'), options.maxHeaders ?? 100);
      if (typeof parsed === 'string') finish({ status: 400, reason: parsed });
      else finish({ ...parsed, rest: Buffer.from(all.subarray(end + END.length)) });
    };
    client.on('data', onData);
    client.once('end', onGone);
    client.once('close', onGone);
    // A stream closed before we got it emits neither event again.
    if (client.destroyed || client.readableEnded) onGone();
    else client.resume();
  });
}

/** Whether `readHead` produced a head. */
export function isHead(result: RequestHead | HeadFailure): result is RequestHead {
  return 'method' in result;
}

/** The values of header `name` (case-insensitive). */
export function headerValues(head: Pick<RequestHead, 'headers'>, name: string): string[] {
  const wanted = name.toLowerCase();
  return head.headers.filter(([key]) => key.toLowerCase() === wanted).map(([, value]) => value);
}
