import type { Readable } from 'node:stream';

/** Docker's multiplexed attach stream: an 8-byte header (stream type, 3 zero bytes, payload length) per piece. */
const HEADER_BYTES = 8;

/**
 * Splits a container's multiplexed attach stream into its stdout and stderr, handing on the payload bytes as
 * they arrive (views of the socket's buffers, no copies) instead of collecting each piece whole first: a piece
 * may be long, and docker-modem's `demuxStream` concatenates its buffer on every read, quadratic in the piece.
 * Only a header split across reads is held (8 bytes). A stream type other than stdout or stderr means the stream
 * is not what it should be: `onBroken` is told and nothing more is read.
 */
export function demuxAttach(
  stream: Readable,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  onBroken: (reason: string) => void = () => undefined,
): void {
  let header = Buffer.alloc(0);
  let target: NodeJS.WritableStream | undefined;
  let missing = 0;
  let broken = false;
  const onData = (data: Buffer) => {
    let rest = data;
    while (rest.length > 0 && !broken) {
      if (missing > 0) {
        const take = Math.min(missing, rest.length);
        target?.write(rest.subarray(0, take));
        missing -= take;
        rest = rest.subarray(take);
        continue;
      }
      const need = HEADER_BYTES - header.length;
      if (rest.length < need) {
        header = Buffer.concat([header, rest]);
        return;
      }
      const full = header.length > 0 ? Buffer.concat([header, rest.subarray(0, need)]) : rest.subarray(0, need);
      header = Buffer.alloc(0);
      rest = rest.subarray(need);
      const type = full[0];
      if (type !== 1 && type !== 2) {
        broken = true;
        stream.off('data', onData);
        onBroken(`the attach stream carried an unknown stream type ${type}`);
        return;
      }
      target = type === 1 ? stdout : stderr;
      missing = full.readUInt32BE(4);
    }
  };
  stream.on('data', onData);
}
