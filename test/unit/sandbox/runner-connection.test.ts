import { describe, expect, it } from 'vitest';
import { FakeRunner, resultFrame } from './fake-runner.js';

describe('RunnerConnection', () => {
  it('resolves ready, streams frames of the request and matches the answer by id', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    runner.ready();
    expect((await connection.ready).python).toBe('3.13.5');
    runner.onRequest = (req) => {
      runner.send({ type: 'stdout', id: 'other', text: 'not mine' });
      runner.send({ type: 'stdout', id: req.id, text: 'hello' }, true);
      runner.send(resultFrame(String(req.id), { stdout: 'hello' }), true);
    };
    const seen: string[] = [];
    const frame = await connection.request(
      {
        op: 'run',
        language: 'python',
        code: 'x',
        timeoutMs: 1,
        graceMs: 1,
        outputBytes: 1,
        maxFileBytes: 1,
        maxRunFilesBytes: 1,
      },
      (f) => {
        if (f.type === 'stdout') seen.push(f.text);
      },
    );
    expect(frame).toMatchObject({ type: 'result', stdout: 'hello' });
    expect(seen).toEqual(['hello']);
  });

  it('serialises requests: one in flight at a time', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    let inFlight = 0;
    let maxInFlight = 0;
    runner.onRequest = (req) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        runner.send({ type: 'ok', id: req.id });
      }, 5);
    };
    await Promise.all([1, 2, 3].map(() => connection.request({ op: 'ping' })));
    expect(runner.requests).toHaveLength(3);
    expect(maxInFlight).toBe(1);
  });

  it('ignores forged or malformed frames', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    runner.onRequest = (req) => {
      runner.stream.push(Buffer.from('not json\n{"type":"result","id":"1"}\n'));
      runner.send({ type: 'ok', id: req.id });
    };
    await expect(connection.request({ op: 'ping' })).resolves.toMatchObject({ type: 'ok' });
  });

  it('rejects the pending request and later ones when the container goes away', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    runner.onRequest = () => runner.end();
    await expect(connection.request({ op: 'ping' })).rejects.toMatchObject({ code: 'sandbox_protocol' });
    await connection.closed;
    expect(connection.isClosed).toBe(true);
    await expect(connection.request({ op: 'ping' })).rejects.toMatchObject({ code: 'sandbox_protocol' });
    await expect(connection.ready).rejects.toBeTruthy();
  });

  it('sends interrupts immediately, bypassing the queue, once the request is written', async () => {
    const runner = new FakeRunner();
    const connection = runner.connect();
    let sent = false;
    const running = connection.request({ op: 'ping' }, undefined, () => (sent = true));
    expect(sent).toBe(false); // written on a later tick: an interrupt now would precede it
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toBe(true);
    connection.interrupt();
    await new Promise((r) => setTimeout(r, 5));
    expect(runner.requests.map((r) => r.op)).toEqual(['ping', 'interrupt']);
    runner.send({ type: 'ok', id: '1' });
    await running;
  });

  describe('file bytes travel raw beside their frame', () => {
    it('reads exactly the bytes a file frame claims, newlines and all, split anywhere, then lines again', async () => {
      const runner = new FakeRunner();
      const connection = runner.connect();
      const data = Buffer.from('line one\n{"type":"ok","id":"9"}\n\u00ff\u0000binary', 'latin1');
      runner.onRequest = (req) => {
        if (req.op === 'stream_file') runner.sendFile(req.id, data, { size: data.length, eof: true }, true);
        else runner.send({ type: 'ok', id: req.id }, true);
      };
      const frame = await connection.request({ op: 'stream_file', path: 'a.bin', maxBytes: 1 << 20 });
      expect(frame.type).toBe('file');
      if (frame.type === 'file') expect(Buffer.compare(frame.data, data)).toBe(0);
      await expect(connection.request({ op: 'ping' })).resolves.toMatchObject({ type: 'ok' });
    });

    it('sends a put_file payload raw after its line, its length in `bytes`', async () => {
      const runner = new FakeRunner();
      const connection = runner.connect();
      runner.onRequest = (req) => runner.send({ type: 'ok', id: req.id });
      const payload = Buffer.from([0, 10, 13, 255, 10]);
      await connection.request({ op: 'put_file', path: 'x.bin', append: false }, undefined, undefined, payload);
      const [request] = runner.requests;
      expect(request).toMatchObject({ op: 'put_file', path: 'x.bin', bytes: 5 });
      expect(Buffer.compare(request!.payload as Buffer, payload)).toBe(0);
    });

    it('refuses a payload over the frame limit before anything is written', async () => {
      const runner = new FakeRunner();
      const connection = runner.connect();
      const big = Buffer.alloc(4 * 1024 * 1024 + 1);
      await expect(
        connection.request({ op: 'put_file', path: 'x.bin', append: false }, undefined, undefined, big),
      ).rejects.toThrow(/at most 4194304 bytes/);
      expect(runner.requests).toHaveLength(0);
      // Nothing of the refused request is left pending: the next one is answered as usual.
      runner.onRequest = (req) => runner.send({ type: 'ok', id: req.id });
      await expect(connection.request({ op: 'ping' })).resolves.toMatchObject({ type: 'ok', id: '1' });
    });

    it('a file frame claiming more than the limit ends the connection: the stream cannot be read in step', async () => {
      const runner = new FakeRunner();
      const connection = runner.connect();
      runner.onRequest = (req) =>
        runner.sendFile(req.id, Buffer.alloc(10), { size: 10, eof: true, claimBytes: 5 * 1024 * 1024 });
      await expect(connection.request({ op: 'stream_file', path: 'a', maxBytes: 10 })).rejects.toThrow(
        /file frame that cannot be read/,
      );
      expect(connection.isClosed).toBe(true);
      await connection.closed;
    });
  });
});
