import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { storeAttachments } from '../../../src/core/attachments.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { PlatformAdapter } from '../../../src/ports/platform-adapter.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';

const THREAD = 'web:local:web:t1';

function message(names: string[]): InboundMessage {
  return {
    id: 'm1',
    thread: { platform: 'web', workspace: 'local', channel: 'web', thread: 't1' },
    user: { id: 'u1' },
    text: 'look',
    attachments: names.map((name) => ({ id: name, name, url: `test:${name}` })),
    receivedAtMs: Date.now(),
  } as InboundMessage;
}

/** An adapter whose downloads send `bytes[name]` bytes in 1 KiB chunks, whatever it was asked to cap. */
function lyingAdapter(bytes: Record<string, number>, opened: string[]): Pick<PlatformAdapter, 'download'> {
  return {
    download: async (attachment) => {
      opened.push(attachment.name);
      const total = bytes[attachment.name]!;
      const chunks = Array.from({ length: Math.ceil(total / 1024) }, (_, i) =>
        Buffer.alloc(Math.min(1024, total - i * 1024), 1),
      );
      return { stream: Readable.from(chunks), bytes: 10 }; // the declared size lies
    },
  };
}

describe('storeAttachments streams downloads into the sandbox', () => {
  it('counts the bytes itself: a download over the limit is reported and not stored, the others arrive', async () => {
    const sandbox = new FakeSandbox();
    const opened: string[] = [];
    const adapter = lyingAdapter({ 'big.bin': 64 * 1024, 'small.csv': 2000 }, opened);
    const outcome = await storeAttachments({
      message: message(['big.bin', 'small.csv']),
      threadKey: THREAD,
      adapter: adapter as PlatformAdapter,
      sandbox,
      maxBytes: 16 * 1024,
    });
    expect(opened).toEqual(['big.bin', 'small.csv']);
    expect(outcome.stored.map((s) => [s.file.path, s.file.bytes])).toEqual([['small.csv', 2000]]);
    expect(outcome.problems).toHaveLength(1);
    expect(outcome.problems[0]).toMatch(
      /`big\.bin` could not be added: .*over the 16\.0 KB limit \(THREADLAB_MAX_FILE_MB\)/,
    );
    expect((await sandbox.listFiles(THREAD)).map((f) => f.path)).toEqual(['small.csv']);
  });
});
