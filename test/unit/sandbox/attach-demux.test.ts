import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demuxAttach } from '../../../sandbox/attach-demux.js';

const piece = (type: number, payload: Buffer) => {
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

function collect(stream: PassThrough): Buffer[] {
  const got: Buffer[] = [];
  stream.on('data', (d: Buffer) => got.push(d));
  return got;
}

describe('demuxAttach', () => {
  it('splits stdout and stderr however the reads cut headers and payloads, handing payload bytes on as they come', () => {
    const source = new PassThrough();
    const out = new PassThrough();
    const err = new PassThrough();
    const gotOut = collect(out);
    const gotErr = collect(err);
    demuxAttach(source, out, err);
    const all = Buffer.concat([
      piece(1, Buffer.from('hello ')),
      piece(2, Buffer.from('oops')),
      piece(1, Buffer.alloc(100_000, 'x')),
      piece(1, Buffer.from(' world')),
    ]);
    for (let i = 0; i < all.length; i += 5) source.write(all.subarray(i, i + 5));
    expect(Buffer.concat(gotOut).toString()).toBe(`hello ${'x'.repeat(100_000)} world`);
    expect(Buffer.concat(gotErr).toString()).toBe('oops');
    expect(gotOut.length).toBeGreaterThan(3); // the long piece came in parts, not collected first
  });

  it('an unknown stream type is reported once and nothing more is read', () => {
    const source = new PassThrough();
    const out = new PassThrough();
    const gotOut = collect(out);
    const reasons: string[] = [];
    demuxAttach(source, out, new PassThrough(), (reason) => reasons.push(reason));
    source.write(
      Buffer.concat([piece(1, Buffer.from('ok')), piece(7, Buffer.from('bad')), piece(1, Buffer.from('no'))]),
    );
    expect(Buffer.concat(gotOut).toString()).toBe('ok');
    expect(reasons).toEqual(['the attach stream carried an unknown stream type 7']);
  });
});
