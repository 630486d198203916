import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { buildReply, type BuildReplyDeps } from '../../../src/replies/build-reply.js';
import { MapSandbox, RecordingRenderer, run, turn } from './helpers.js';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A real pino logger writing JSON lines into an array. */
function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

function deps(o: { sandbox?: MapSandbox; renderer: RecordingRenderer; logger: pino.Logger; maxFileBytes?: number }) {
  return {
    sandbox: o.sandbox ?? new MapSandbox(),
    renderer: o.renderer,
    threadKey: 'web:local:t1',
    limits: { maxImageDimensionPx: 2048, maxOutputLines: 60, maxFileBytes: o.maxFileBytes ?? 10_000 },
    logger: o.logger,
  } satisfies BuildReplyDeps;
}

describe('an image that cannot be shown is said, never dropped', () => {
  it('an undecodable image file: the reply says why, the file stays attached, logged at debug only', async () => {
    const renderer = new RecordingRenderer();
    renderer.failNames.add('chart.png');
    const { logger, lines } = capturingLogger();
    const sandbox = new MapSandbox(new Map([['chart.png', Buffer.from('not really a png')]]));
    const reply = await buildReply(
      turn({
        text: 'Here is the chart.',
        runs: [run({ artifacts: [{ path: 'chart.png', bytes: 16, mime: 'image/png', change: 'created' }] })],
      }),
      deps({ sandbox, renderer, logger }),
    );
    expect(reply.images).toEqual([]);
    expect(reply.files.map((f) => f.name)).toEqual(['chart.png']);
    expect(reply.text).toContain('_chart.png could not be rendered: it is broken; it is attached as a file._');
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(lines.find((l) => l.msg === 'image not rendered: not decodable')).toMatchObject({ image: 'chart.png' });
  });

  it('a failure of ours is logged as an error with its cause, and the original figure is attached', async () => {
    const renderer = new RecordingRenderer();
    renderer.brokenNames.add('figure-1.png');
    const { logger, lines } = capturingLogger();
    const reply = await buildReply(
      turn({ text: 'Plotted.', runs: [run({ displays: [{ data: { 'image/png': PNG_1PX } }] })] }),
      deps({ renderer, logger }),
    );
    expect(reply.text).toContain(
      '_figure-1.png could not be rendered: the image renderer failed on our side; the original is attached._',
    );
    expect(reply.files).toHaveLength(1);
    expect(reply.files[0]).toMatchObject({ name: 'figure-1.png', mime: 'image/png' });
    expect(reply.files[0]!.data.equals(Buffer.from(PNG_1PX, 'base64'))).toBe(true);
    const error = lines.find((l) => l.level === 50);
    expect(error).toMatchObject({ msg: 'image rendering failed', image: 'figure-1.png' });
    expect((error!.err as { type: string; message: string }).type).toBe('TypeError');
  });

  it('a figure too large to attach is listed as not attached, with the reason', async () => {
    const renderer = new RecordingRenderer();
    renderer.failNames.add('figure-1.png');
    const { logger } = capturingLogger();
    const reply = await buildReply(
      turn({ text: 'Plotted.', runs: [run({ displays: [{ data: { 'image/png': PNG_1PX } }] })] }),
      deps({ renderer, logger, maxFileBytes: 10 }),
    );
    expect(reply.files).toEqual([]);
    expect(reply.text).toContain('_figure-1.png could not be rendered: it is broken._');
    expect(reply.omitted).toEqual([
      { name: 'figure-1.png', bytes: 70, reason: 'it could not be rendered: it is broken' },
    ]);
  });
});
