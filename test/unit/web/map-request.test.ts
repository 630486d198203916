import { describe, expect, it } from 'vitest';
import {
  mimeFromName,
  parseMessageBody,
  parseTextCommand,
  toInboundMessage,
  WebRequestError,
} from '../../../adapters/web/map-request.js';
import { safeFileName } from '../../../src/domain/file-names.js';

const multipart = (parts: { name: string; filename?: string; type?: string; value: string }[]) => {
  const boundary = 'XyZbOuNdArY';
  const body = parts
    .map((p) => {
      const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
      const type = p.type ? `\r\nContent-Type: ${p.type}` : '';
      return `--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n${p.value}\r\n`;
    })
    .join('');
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.from(`${body}--${boundary}--\r\n`) };
};

describe('parseMessageBody', () => {
  it('reads text and files from multipart/form-data', async () => {
    const { contentType, body } = multipart([
      { name: 'text', value: 'plot it' },
      { name: 'file', filename: 'sales.csv', type: 'text/csv', value: 'a,b\n1,2\n' },
      { name: 'file', filename: '../../etc/book.xlsx', value: 'PK' },
      { name: 'id', value: 'client-1' },
    ]);
    const posted = await parseMessageBody(contentType, body, { maxFileBytes: 1000 });
    expect(posted.text).toBe('plot it');
    expect(posted.clientId).toBe('client-1');
    expect(posted.files.map((f) => [f.name, f.mime, f.data.toString()])).toEqual([
      ['sales.csv', 'text/csv', 'a,b\n1,2\n'],
      ['book.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'PK'],
    ]);
  });

  it('reads JSON with base64 attachments', async () => {
    const body = Buffer.from(
      JSON.stringify({
        text: 'hi',
        attachments: [{ name: 'd.json', dataBase64: Buffer.from('{"a":1}').toString('base64') }],
      }),
    );
    const posted = await parseMessageBody('application/json; charset=utf-8', body, { maxFileBytes: 1000 });
    expect(posted.files).toEqual([{ name: 'd.json', mime: 'application/json', data: Buffer.from('{"a":1}') }]);
  });

  it('refuses files over the limit with 413, naming the file', async () => {
    const body = Buffer.from(
      JSON.stringify({ attachments: [{ name: 'big.bin', dataBase64: Buffer.alloc(11).toString('base64') }] }),
    );
    const err = await parseMessageBody('application/json', body, { maxFileBytes: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebRequestError);
    expect((err as WebRequestError).status).toBe(413);
    expect((err as WebRequestError).message).toContain('big.bin');
  });

  it('refuses empty messages, bad JSON, bad base64, bad ids and other content types', async () => {
    const status = (p: Promise<unknown>) =>
      p.then(
        () => 0,
        (e: WebRequestError) => e.status,
      );
    expect(await status(parseMessageBody('application/json', Buffer.from('{"text":"  "}'), { maxFileBytes: 10 }))).toBe(
      400,
    );
    expect(await status(parseMessageBody('application/json', Buffer.from('{nope'), { maxFileBytes: 10 }))).toBe(400);
    const badB64 = JSON.stringify({ attachments: [{ name: 'a', dataBase64: '%%%' }] });
    expect(await status(parseMessageBody('application/json', Buffer.from(badB64), { maxFileBytes: 10 }))).toBe(400);
    expect(
      await status(parseMessageBody('application/json', Buffer.from('{"text":"x","id":"a/b"}'), { maxFileBytes: 10 })),
    ).toBe(400);
    expect(await status(parseMessageBody('text/plain', Buffer.from('hi'), { maxFileBytes: 10 }))).toBe(415);
  });
});

describe('toInboundMessage', () => {
  it('maps a stored user message to the InboundMessage of its thread', () => {
    const msg = toInboundMessage({
      messageId: 'm1',
      threadId: 't1',
      text: '```python\nprint(1)\n```',
      attachments: [{ id: 'u1', name: 'sales.csv', mime: 'text/csv', bytes: 8, url: '/api/files/u1' }],
      receivedAtMs: 1234,
    });
    expect(msg).toEqual({
      id: 'web-m1',
      thread: { platform: 'web', workspace: 'local', channel: 'web', thread: 't1' },
      user: { id: 'web-user', name: 'you' },
      text: '```python\nprint(1)\n```',
      attachments: [{ id: 'u1', name: 'sales.csv', mime: 'text/csv', bytes: 8, url: 'web-upload:u1' }],
      receivedAtMs: 1234,
      replyContext: { threadId: 't1', messageId: 'm1' },
    });
    expect(msg.command).toBeUndefined();
  });

  it('turns /reset and the reset button into a reset command', () => {
    const base = { messageId: 'm', threadId: 't', attachments: [], receivedAtMs: 0 };
    expect(toInboundMessage({ ...base, text: '/reset' }).command).toEqual({ name: 'reset' });
    expect(toInboundMessage({ ...base, text: '', command: { name: 'reset' } }).command).toEqual({ name: 'reset' });
    expect(parseTextCommand(' /FILES ')).toEqual({ name: 'files' });
    expect(parseTextCommand('/reset please')).toBeUndefined();
    expect(parseTextCommand('reset')).toBeUndefined();
  });
});

describe('file names', () => {
  it('strips directories and control characters, guesses MIME types', () => {
    expect(safeFileName('C:\\Users\\me\\data.csv')).toBe('data.csv');
    expect(safeFileName('../../.bashrc')).toBe('bashrc');
    expect(safeFileName('a\u0000b\n.txt')).toBe('ab.txt');
    expect(safeFileName('...', 'upload')).toBe('upload');
    expect(mimeFromName('Report.XLSX')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(mimeFromName('noext')).toBe('application/octet-stream');
  });
});
