import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, closeAttachments, openAttachments, readChatBody } from './chat-body.js';
import { DAEMON_LIMITS } from './protocol.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'threadlab-chat-body-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const header = (attachments: { name: string; bytes: number }[], extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ thread: 't', text: 'hi', attachments, ...extra })}\n`;

function body(...parts: (string | Buffer)[]): Readable {
  return Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

let reads = 0;
const read = (b: Readable, maxFileBytes = 1000) =>
  readChatBody(b, { stagingDir: join(base, `staging-${++reads}`), maxFileBytes });

describe('chat request bodies', () => {
  it('round-trips files the client opened, staged privately', async () => {
    writeFileSync(join(base, 'a.csv'), 'x,y\n1,2\n');
    writeFileSync(join(base, 'empty.txt'), '');
    const opened = await openAttachments([join(base, 'a.csv'), join(base, 'empty.txt')], { maxBytes: 100 });
    try {
      const received = await read(chatBody({ thread: 't', text: 'look' }, opened));
      expect(received.header).toEqual({
        thread: 't',
        text: 'look',
        attachments: [
          { name: 'a.csv', bytes: 8 },
          { name: 'empty.txt', bytes: 0 },
        ],
      });
      expect(readFileSync(received.files[0]!, 'utf8')).toBe('x,y\n1,2\n');
      expect(readFileSync(received.files[1]!, 'utf8')).toBe('');
      expect(statSync(join(base, `staging-${reads}`)).mode & 0o777).toBe(0o700);
      expect(statSync(received.files[0]!).mode & 0o777).toBe(0o600);
    } finally {
      await closeAttachments(opened);
    }
  });

  it('refuses a path in place of file contents (the daemon opens nothing a caller names)', async () => {
    await expect(read(body(header([]).replace('[]', '["/etc/shadow"]')))).rejects.toThrow(/Malformed chat request/);
  });

  it('refuses a file that is shorter or longer than announced', async () => {
    await expect(read(body(header([{ name: 'a', bytes: 10 }]), 'short'))).rejects.toThrow(
      'a ended after 5 of the 10 bytes announced.',
    );
    await expect(read(body(header([{ name: 'a', bytes: 2 }]), 'longer'))).rejects.toThrow(
      'The request carries more bytes than its attachments announced.',
    );
  });

  it('refuses a file over the size limit before reading it', async () => {
    await expect(read(body(header([{ name: 'big', bytes: 1001 }])))).rejects.toThrow(
      'big is 1001 bytes, over the limit of 1000',
    );
    expect(readdirSync(base)).toEqual([]);
  });

  it(`refuses more than ${DAEMON_LIMITS.maxAttachments} attachments, on both sides`, async () => {
    const many = Array.from({ length: DAEMON_LIMITS.maxAttachments + 1 }, (_, i) => ({ name: `f${i}`, bytes: 0 }));
    await expect(read(body(header(many)))).rejects.toThrow(/Malformed chat request/);
    const paths = many.map((f) => join(base, f.name));
    await expect(openAttachments(paths, { maxBytes: 10 })).rejects.toThrow(
      `21 files attached; at most ${DAEMON_LIMITS.maxAttachments} per message.`,
    );
  });

  it('refuses a header line over the limit without buffering the rest', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const endless = Readable.from(
      (function* () {
        for (let i = 0; i < 64; i++) yield chunk;
      })(),
    );
    await expect(read(endless)).rejects.toThrow(
      `The message is over the limit of ${DAEMON_LIMITS.maxJsonBytes} bytes.`,
    );
  });

  it('the client refuses what its user cannot read, directories, and files over the limit', async () => {
    writeFileSync(join(base, 'big.bin'), Buffer.alloc(11));
    await expect(openAttachments([join(base, 'missing.csv')], { maxBytes: 10 })).rejects.toThrow(
      /--attach: cannot read .*missing.csv \(ENOENT\)/,
    );
    await expect(openAttachments([base], { maxBytes: 10 })).rejects.toThrow(/is not a regular file/);
    await expect(openAttachments([join(base, 'big.bin')], { maxBytes: 10 })).rejects.toThrow(
      /is 11 bytes, over the limit of 10/,
    );
  });
});
