import type { FileHandle } from 'node:fs/promises';

/** Pieces gathered before one write: a streamed chunk arrives as many socket-sized pieces. */
export const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * Writes pieces to a file in batches of about {@link WRITE_BATCH_BYTES} with one `writev` each, instead of one
 * write per piece. The pieces are kept as given (views of socket reads), not copied, until written.
 */
export class BatchedWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private handle: FileHandle) {}

  async write(piece: Buffer): Promise<void> {
    this.pending.push(piece);
    this.pendingBytes += piece.length;
    if (this.pendingBytes >= WRITE_BATCH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    const pieces = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (pieces.length > 0) await this.handle.writev(pieces);
  }

  /** Forgets what was not written yet and writes to `handle` from now on. */
  restart(handle: FileHandle): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.handle = handle;
  }
}
