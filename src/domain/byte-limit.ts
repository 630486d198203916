import { pipeline, Transform, type Readable } from 'node:stream';

export interface ByteLimitOptions {
  /** Bytes allowed through; one more fails the stream. */
  maxBytes: number;
  /** The error the stream fails with once more than `maxBytes` arrived, given the bytes counted so far. */
  tooLarge: (receivedBytes: number) => Error;
}

/**
 * `source` passed through a counter that fails the stream as soon as more than `maxBytes` arrived,
 * whatever size was declared for it (declared sizes are claims). Destroying the returned stream
 * destroys `source` too, so giving up on a download also closes its connection or file.
 */
export function limitBytes(source: Readable, options: ByteLimitOptions): Readable {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > options.maxBytes) done(options.tooLarge(received));
      else done(null, chunk);
    },
  });
  // The error reaches whoever reads `counter`; pipeline's callback only keeps it from being unhandled.
  return pipeline(source, counter, () => undefined);
}
