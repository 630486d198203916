import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest, RestResult } from './rest.js';

/**
 * Reads one REST request as Discord's API takes it: the path decoded and relative to `/api/vN`, the body as
 * JSON or as multipart form data (`payload_json` and the files, in field order).
 */
export async function readRequest(req: IncomingMessage, url: URL, raw: Buffer): Promise<RecordedRequest> {
  const recorded: RecordedRequest = {
    method: req.method ?? 'GET',
    path: decodeURIComponent(url.pathname.replace(/^\/api\/v\d+/, '')),
    query: Object.fromEntries(url.searchParams),
    headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
    json: undefined,
    files: [],
    status: 0,
    atMs: Date.now(),
  };
  await parseBody(recorded, raw);
  return recorded;
}

/** Writes an answer: JSON, or nothing for a 204. */
export function writeResult(res: ServerResponse, result: RestResult): void {
  if (result.status === 204) {
    res.writeHead(204, result.headers ?? {}).end();
    return;
  }
  res
    .writeHead(result.status, { 'content-type': 'application/json', ...result.headers })
    .end(JSON.stringify(result.body ?? {}));
}

async function parseBody(recorded: RecordedRequest, raw: Buffer): Promise<void> {
  const type = recorded.headers['content-type'] ?? '';
  if (raw.length === 0) return;
  if (type.startsWith('application/json')) {
    recorded.json = JSON.parse(raw.toString('utf8'));
    return;
  }
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
    for (const [field, value] of form as unknown as Iterable<[string, string | File]>) {
      if (field === 'payload_json' && typeof value === 'string') recorded.json = JSON.parse(value);
      else if (typeof value !== 'string') {
        recorded.files.push({
          field,
          filename: value.name,
          contentType: value.type,
          data: Buffer.from(await value.arrayBuffer()),
        });
      }
    }
  }
}
