import { describe, expect, it } from 'vitest';
import { CsvWriter } from '../../../adapters/postgres/csv-writer.js';

const roomy = { maxRows: 1000, maxBytes: 1024 * 1024 };

describe('CsvWriter', () => {
  it('writes RFC 4180: a header, CRLF rows, quotes only where needed, NULL empty and the empty string ""', () => {
    const csv = new CsvWriter(['id', 'note, with comma'], roomy);
    for (const row of [
      ['1', 'plain'],
      ['2', 'say "hi"'],
      ['3', 'two\nlines'],
      ['4', null],
      ['5', ''],
      ['6', 'cr\rhere'],
    ])
      expect(csv.add(row)).toBe(true);
    expect(csv.toBuffer().toString()).toBe(
      'id,"note, with comma"\r\n1,plain\r\n2,"say ""hi"""\r\n3,"two\nlines"\r\n4,\r\n5,""\r\n6,"cr\rhere"\r\n',
    );
    expect(csv.rows).toBe(6);
    expect(csv.cut).toBeUndefined();
  });

  it('stops at maxRows only when another row comes (exactly the cap is not a cut)', () => {
    const csv = new CsvWriter(['n'], { ...roomy, maxRows: 2 });
    expect(csv.add(['1'])).toBe(true);
    expect(csv.add(['2'])).toBe(true);
    expect(csv.cut).toBeUndefined();
    expect(csv.add(['3'])).toBe(false);
    expect(csv.cut).toBe('rows');
    expect(csv.add(['4'])).toBe(false);
    expect(csv.toBuffer().toString()).toBe('n\r\n1\r\n2\r\n');
  });

  it('stops before the row that would pass maxBytes, counting bytes (not characters) and the header', () => {
    const csv = new CsvWriter(['é'], { maxRows: 100, maxBytes: 12 }); // 'é\r\n': 4 bytes
    expect(csv.add(['ab'])).toBe(true); // 4 more: 8
    expect(csv.add(['€'])).toBe(false); // '€\r\n' is 5 bytes: 13 would pass 12
    expect(csv.cut).toBe('bytes');
    expect(csv.bytes).toBe(8);
    expect(csv.toBuffer().toString()).toBe('é\r\nab\r\n');
  });

  it('a header larger than maxBytes is a cut at once', () => {
    const csv = new CsvWriter(['a'.repeat(2000)], { maxRows: 10, maxBytes: 1024 });
    expect(csv.cut).toBe('bytes');
    expect(csv.add(['1'])).toBe(false);
    expect(csv.toBuffer().length).toBe(0);
  });

  it('keeps large outputs whole across its internal chunks', () => {
    const csv = new CsvWriter(['n', 'text'], { maxRows: 50_000, maxBytes: 10 * 1024 * 1024 });
    for (let i = 0; i < 20_000; i++) csv.add([String(i), 'x'.repeat(20)]);
    const out = csv.toBuffer();
    expect(out.length).toBe(csv.bytes);
    const lines = out.toString().trimEnd().split('\r\n');
    expect(lines).toHaveLength(20_001);
    expect(lines[20_000]).toBe(`19999,${'x'.repeat(20)}`);
  });
});
