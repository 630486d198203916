import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebRequestError } from '../../../adapters/web/map-request.js';
import { readMessageBody, type MessageBodyLimits } from '../../../adapters/web/message-body.js';

const BOUNDARY = 'XyZbOuNdArY';

function multipart(parts: { name: string; filename?: string; type?: string; value: string | Buffer }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.type ? `\r\nContent-Type: ${p.type}` : '';
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** A request-like body delivered in chunks of `chunkBytes`. */
function request(contentType: string, body: Buffer, chunkBytes = 64 * 1024) {
  return {
    headers: { 'content-type': contentType },
    async *[Symbol.asyncIterator]() {
      for (let i = 0; i < body.length; i += chunkBytes) yield body.subarray(i, i + chunkBytes);
    },
  };
}

const MP = `multipart/form-data; boundary=${BOUNDARY}`;
const LIMITS: MessageBodyLimits = { maxFileBytes: 1000, maxFilesTotalBytes: 1500, maxTextBytes: 100, maxFiles: 3 };

describe('readMessageBody', () => {
  let tmpDir: string;
  beforeEach(async () => {
    tmpDir = await mkdtemp(join(tmpdir(), 'threadlab-body-'));
  });
  afterEach(() => rm(tmpDir, { recursive: true, force: true }));

  const read = (req: ReturnType<typeof request>, limits: Partial<MessageBodyLimits> = {}) =>
    readMessageBody(req, { tmpDir, limits: { ...LIMITS, ...limits } });
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => (e instanceof WebRequestError ? { status: e.status, code: e.code, message: e.message } : e),
    );

  it('streams multipart files to disk, whatever the chunking, and keeps text and id in memory', async () => {
    const body = multipart([
      { name: 'text', value: 'plot it' },
      { name: 'file', filename: 'sales.csv', type: 'text/csv', value: 'a,b\r\n1,2\r\n' },
      { name: 'file', filename: '../../etc/book.xlsx', value: Buffer.from([0x50, 0x4b, 0x0d, 0x0a, 0x2d, 0x2d]) },
      { name: 'id', value: 'client-1' },
    ]);
    for (const chunkBytes of [1, 7, 13, 64 * 1024]) {
      const posted = await read(request(MP, body, chunkBytes));
      expect(posted.text).toBe('plot it');
      expect(posted.clientId).toBe('client-1');
      expect(posted.files.map((f) => [f.name, f.mime, f.bytes])).toEqual([
        ['sales.csv', 'text/csv', 10],
        ['book.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 6],
      ]);
      expect(await readFile(posted.files[0]!.path, 'utf8')).toBe('a,b\r\n1,2\r\n');
      expect(await readFile(posted.files[1]!.path)).toEqual(Buffer.from([0x50, 0x4b, 0x0d, 0x0a, 0x2d, 0x2d]));
    }
  });

  it('reads JSON with base64 attachments into files', async () => {
    const body = JSON.stringify({
      text: 'hi',
      attachments: [{ name: 'd.json', dataBase64: Buffer.from('{"a":1}').toString('base64') }],
    });
    const posted = await read(request('application/json; charset=utf-8', Buffer.from(body)));
    expect(posted.files.map((f) => [f.name, f.mime, f.bytes])).toEqual([['d.json', 'application/json', 7]]);
    expect(await readFile(posted.files[0]!.path, 'utf8')).toBe('{"a":1}');
  });

  it('refuses a file over the limit with 413 naming it, and leaves no partial file behind', async () => {
    const body = multipart([{ name: 'file', filename: 'big.bin', value: Buffer.alloc(1001) }]);
    expect(await refusal(read(request(MP, body, 100)))).toMatchObject({ status: 413, code: 'file_too_large' });
    expect(((await refusal(read(request(MP, body)))) as { message: string }).message).toContain('big.bin');
    const json = JSON.stringify({
      attachments: [{ name: 'big.bin', dataBase64: Buffer.alloc(1001).toString('base64') }],
    });
    expect(await refusal(read(request('application/json', Buffer.from(json))))).toMatchObject({
      status: 413,
      code: 'file_too_large',
    });
    expect(await readdir(tmpDir)).toEqual([]);
  });

  it('refuses files over their total, too many files and truncated bodies, leaving no files', async () => {
    const file = (n: number) => ({ name: 'file', filename: `f${n}.bin`, value: Buffer.alloc(600) });
    expect(await refusal(read(request(MP, multipart([file(1), file(2), file(3)]))))).toMatchObject({ status: 413 });
    const four = multipart([1, 2, 3, 4].map((n) => ({ ...file(n), value: 'x' })));
    expect(await refusal(read(request(MP, four)))).toMatchObject({ status: 413, code: 'too_many_files' });
    const cut = multipart([file(1)]).subarray(0, 300);
    expect(await refusal(read(request(MP, cut)))).toMatchObject({ status: 400, code: 'bad_multipart' });
    expect(await readdir(tmpDir)).toEqual([]);
  });

  it('caps the message text in both encodings (413), before it is kept', async () => {
    const long = 'x'.repeat(101);
    expect(await refusal(read(request(MP, multipart([{ name: 'text', value: long }]), 10)))).toMatchObject({
      status: 413,
      code: 'text_too_large',
    });
    const json = Buffer.from(JSON.stringify({ text: 'é'.repeat(51) })); // 102 bytes of UTF-8
    expect(await refusal(read(request('application/json', json)))).toMatchObject({
      status: 413,
      code: 'text_too_large',
    });
    expect(
      (await read(request('application/json', Buffer.from(JSON.stringify({ text: 'x'.repeat(100) }))))).text,
    ).toHaveLength(100);
  });

  it('caps JSON bodies on their own and refuses deep nesting before parsing it', async () => {
    const big = Buffer.from(JSON.stringify({ text: 'hi', pad: 'x'.repeat(2000) }));
    expect(await refusal(read(request('application/json', big), { maxJsonBytes: 1000 }))).toMatchObject({
      status: 413,
    });
    const deep = Buffer.from(`${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}`);
    const started = Date.now();
    expect(await refusal(read(request('application/json', deep), { maxJsonBytes: 20_000_000 }))).toMatchObject({
      status: 400,
      code: 'json_too_deep',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    // brackets inside strings are text, not nesting
    const quoted = Buffer.from(JSON.stringify({ text: '['.repeat(50) }));
    expect((await read(request('application/json', quoted))).text).toBe('['.repeat(50));
  });

  it('refuses empty messages, bad JSON, bad base64, bad ids and other content types', async () => {
    const json = (text: string) => read(request('application/json', Buffer.from(text)));
    expect(await refusal(json('{"text":"  "}'))).toMatchObject({ status: 400 });
    expect(await refusal(json('{nope'))).toMatchObject({ status: 400, code: 'bad_json' });
    expect(await refusal(json(JSON.stringify({ attachments: [{ name: 'a', dataBase64: '%%%' }] })))).toMatchObject({
      status: 400,
    });
    expect(await refusal(json('{"text":"x","id":"a/b"}'))).toMatchObject({ status: 400 });
    expect(await refusal(read(request('text/plain', Buffer.from('hi'))))).toMatchObject({ status: 415 });
    expect(await refusal(read(request('multipart/form-data', Buffer.from('hi'))))).toMatchObject({ status: 400 });
    expect(await readdir(tmpDir)).toEqual([]);
  });
});
