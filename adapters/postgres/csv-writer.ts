/** One CSV field (RFC 4180): NULL is empty, an empty string is `""`, and text with a comma, quote or line break is quoted. */
function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : String(value);
  if (text === '') return '""';
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const line = (values: readonly unknown[]) => `${values.map(field).join(',')}\r\n`;

/**
 * Builds a query's CSV as its rows stream in, up to `maxRows` rows and `maxBytes` bytes (the header counts);
 * `add` says false once a cap is reached, and `cut` which one. Rows are joined in chunks, so memory is the CSV itself.
 */
export class CsvWriter {
  private readonly chunks: Buffer[] = [];
  private pending: string[] = [];
  private pendingBytes = 0;
  rows = 0;
  bytes = 0;
  cut: 'rows' | 'bytes' | undefined;

  constructor(
    header: readonly string[],
    private readonly caps: { maxRows: number; maxBytes: number },
  ) {
    if (!this.push(line(header))) this.cut = 'bytes';
  }

  /** Adds one row; false (and `cut` set) when a cap keeps it out. */
  add(values: readonly unknown[]): boolean {
    if (this.cut) return false;
    if (this.rows >= this.caps.maxRows) return ((this.cut = 'rows'), false);
    if (!this.push(line(values))) return ((this.cut = 'bytes'), false);
    this.rows += 1;
    return true;
  }

  private push(text: string): boolean {
    const size = Buffer.byteLength(text);
    if (this.bytes + size > this.caps.maxBytes) return false;
    this.bytes += size;
    this.pending.push(text);
    this.pendingBytes += size;
    if (this.pendingBytes >= 64 * 1024) this.flush();
    return true;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(Buffer.from(this.pending.join('')));
    this.pending = [];
    this.pendingBytes = 0;
  }

  toBuffer(): Buffer {
    this.flush();
    return Buffer.concat(this.chunks, this.bytes);
  }
}
