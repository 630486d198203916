import { describe, expect, it } from 'vitest';
import { PUT_CHUNK_BYTES, putChunks } from '../../../sandbox/file-transfer.js';
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
