import { describe, expect, it } from 'vitest';
import {
  ChunkReceiver,
  FileTooLargeError,
  PUT_CHUNK_BYTES,
  putChunks,
  STREAM_AHEAD_BYTES,
  streamFile,
} from '../../../sandbox/file-transfer.js';
import { MAX_PAYLOAD_BYTES } from '../../../sandbox/runner-protocol.js';
import { FakeRunner } from './fake-runner.js';

async function* pieces(...buffers: Buffer[]): AsyncIterable<Buffer> {
  for (const b of buffers) yield b;
}

describe('putChunks', () => {
  it('sends every chunk (each piece cut at PUT_CHUNK_BYTES) but the last unanswered, in order, and returns the answer to the last', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    const data = Buffer.alloc(2 * PUT_CHUNK_BYTES + 5, 1);
    runner.onRequest = (req) => {
      if (req.more) return; // a runner answers only the last chunk
      runner.send({
        type: 'ok',
        id: req.id,
        file: { path: 'big.bin', bytes: data.length, mime: 'application/octet-stream', modifiedMs: 1 },
      });
    };
    const file = await putChunks(connection, 'big.bin', pieces(data.subarray(0, 100), data.subarray(100)));
    expect(file.bytes).toBe(data.length);
    expect(runner.requests.map((r) => [r.append, r.more ?? false, (r.payload as Buffer).length])).toEqual([
      [false, true, 100],
      [true, true, PUT_CHUNK_BYTES],
      [true, false, PUT_CHUNK_BYTES - 95],
    ]);
    expect(Buffer.compare(Buffer.concat(runner.requests.map((r) => r.payload as Buffer)), data)).toBe(0);
  });

  it("an empty file is one answered chunk, and the last chunk's error (a failure of any) is thrown", async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    runner.onRequest = (req) => {
      if (req.more) return;
      if (req.path === 'empty.txt')
        runner.send({
          type: 'ok',
          id: req.id,
          file: { path: 'empty.txt', bytes: 0, mime: 'text/plain', modifiedMs: 1 },
        });
      else runner.send({ type: 'error', id: req.id, code: 'unsafe_path', message: 'not under /mnt/data' });
    };
    expect((await putChunks(connection, 'empty.txt', pieces())).bytes).toBe(0);
    expect(runner.requests[0]).toMatchObject({ op: 'put_file', append: false, bytes: 0 });
    await expect(putChunks(connection, '../x', pieces(Buffer.alloc(PUT_CHUNK_BYTES + 1)))).rejects.toMatchObject({
      code: 'sandbox_file_rejected',
    });
  });
});

describe('streamFile', () => {
  const streaming = (runner: FakeRunner, data: Buffer, piece = 1000) => {
    runner.onRequest = (req) => {
      if (req.op !== 'stream_file') return;
      if (data.length <= Number(req.maxBytes)) {
        for (let at = 0; at < data.length; at += piece) runner.sendChunk(req.id, data.subarray(at, at + piece));
      }
      runner.sendFile(req.id, Buffer.alloc(0), { size: data.length, eof: true });
    };
  };

  it('receives a whole file in one request, in order, however the chunks are cut, and asks the runner to remove it', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    const data = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));
    streaming(runner, data, 777);
    const got: Buffer[] = [];
    const n = await streamFile(connection, 'a.bin', {
      maxBytes: 10_000,
      onChunk: (c) => void got.push(c),
      remove: true,
    });
    expect(n).toBe(10_000);
    expect(Buffer.compare(Buffer.concat(got), data)).toBe(0);
    expect(runner.requests).toEqual([{ op: 'stream_file', path: 'a.bin', maxBytes: 10_000, remove: true, id: '1' }]);
  });

  it('a file the runner says is over the limit is refused with FileTooLargeError, and the connection goes on', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    streaming(runner, Buffer.alloc(501));
    await expect(streamFile(connection, 'a.bin', { maxBytes: 500, onChunk: () => undefined })).rejects.toBeInstanceOf(
      FileTooLargeError,
    );
    expect(connection.isClosed).toBe(false);
  });

  it('a runner that streams more than the limit ends the connection: an honest one never does', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    runner.onRequest = (req) => {
      runner.sendChunk(req.id, Buffer.alloc(400));
      runner.sendChunk(req.id, Buffer.alloc(400));
      runner.sendFile(req.id, Buffer.alloc(0), { size: 10, eof: true });
    };
    const got: Buffer[] = [];
    await expect(streamFile(connection, 'a.bin', { maxBytes: 500, onChunk: (c) => void got.push(c) })).rejects.toThrow(
      /streamed more than the 500 bytes allowed/,
    );
    expect(connection.isClosed).toBe(true);
    expect(Buffer.concat(got).length).toBeLessThanOrEqual(500);
  });

  it('a size that does not match the bytes sent fails the transfer', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    runner.onRequest = (req) => {
      runner.sendChunk(req.id, Buffer.alloc(100));
      runner.sendFile(req.id, Buffer.alloc(0), { size: 300, eof: true });
    };
    await expect(streamFile(connection, 'a.bin', { maxBytes: 500, onChunk: () => undefined })).rejects.toThrow(
      /100 of 300 bytes came/,
    );
  });

  it('a chunk frame claiming more than a frame may carry ends the connection', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    runner.onRequest = (req) => runner.sendChunk(req.id, Buffer.alloc(10), { claimBytes: MAX_PAYLOAD_BYTES + 1 });
    await expect(streamFile(connection, 'a.bin', { maxBytes: 1e9, onChunk: () => undefined })).rejects.toThrow(
      /cannot be read/,
    );
    expect(connection.isClosed).toBe(true);
  });

  it('stops reading the container while the consumer is more than STREAM_AHEAD_BYTES behind, and goes on after', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    const piece = 1024 * 1024;
    const total = STREAM_AHEAD_BYTES + 4 * piece;
    streaming(runner, Buffer.alloc(total, 7), piece);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let handed = 0;
    const done = streamFile(connection, 'a.bin', {
      maxBytes: total,
      onChunk: async (c) => {
        handed += c.length;
        await gate;
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(runner.stream.isPaused()).toBe(true);
    expect(handed).toBe(piece); // the first chunk waits; the rest are queued, not handed on
    release();
    await expect(done).resolves.toBe(total);
    expect(runner.stream.isPaused()).toBe(false);
  });

  it('a reset beyond the ones allowed ends the connection; one allowed starts the bytes again', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    const seen: string[] = [];
    const receiver = new ChunkReceiver(connection, {
      path: 'state',
      maxBytes: 100,
      maxResets: 1,
      onChunk: (c) => void seen.push(c.toString()),
      onReset: () => void seen.push('reset'),
    });
    runner.onRequest = (req) => {
      runner.sendChunk(req.id, Buffer.from('a'.repeat(90)));
      runner.sendChunk(req.id, Buffer.alloc(0), { reset: true });
      runner.sendChunk(req.id, Buffer.from('b'.repeat(90))); // within the limit again after the reset
      runner.send({ type: 'ok', id: req.id });
    };
    await connection.request({ op: 'ping' }, receiver.onFrame);
    await receiver.settle();
    expect(seen).toEqual(['a'.repeat(90), 'reset', 'b'.repeat(90)]);
    runner.onRequest = (req) => {
      runner.sendChunk(req.id, Buffer.alloc(0), { reset: true });
      runner.send({ type: 'ok', id: req.id });
    };
    await expect(connection.request({ op: 'ping' }, receiver.onFrame)).rejects.toThrow(/restarted the transfer/);
    expect(connection.isClosed).toBe(true);
  });
});
