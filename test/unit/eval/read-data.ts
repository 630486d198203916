import { inflateRawSync } from 'node:zlib';

/** Test-side readers of the generated files, written apart from the generators so they check them. */

/** RFC 4180 CSV: quoted fields with doubled quotes, a header row, `\n` line ends. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ',') {
      endField();
    } else if (!quoted && c === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else {
      field += c;
    }
  }
  const [header, ...body] = rows;
  return body.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ''])));
}

/** The entries of a ZIP archive whose local headers carry the sizes (no data descriptors). */
export function unzip(archive: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  let at = 0;
  while (archive.readUInt32LE(at) === 0x04034b50) {
    const method = archive.readUInt16LE(at + 8);
    const size = archive.readUInt32LE(at + 18);
    const nameLength = archive.readUInt16LE(at + 26);
    const extraLength = archive.readUInt16LE(at + 28);
    const name = archive.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const start = at + 30 + nameLength + extraLength;
    const body = archive.subarray(start, start + size);
    entries.set(name, method === 8 ? inflateRawSync(body) : body);
    at = start + size;
  }
  return entries;
}

/** A cell as the sheet stores it: its text, its number, or a date cell's serial with `date: true`. */
export interface SheetCell {
  value: string;
  date: boolean;
}

/** Sheet name → rows of cells (header first), from a workbook written with inline strings. */
export function readWorkbook(data: Buffer): Map<string, SheetCell[][]> {
  const parts = unzip(data);
  const names = [
    ...parts
      .get('xl/workbook.xml')!
      .toString()
      .matchAll(/<sheet name="([^"]+)"/g),
  ].map((m) => m[1]!);
  const sheets = new Map<string, SheetCell[][]>();
  names.forEach((name, i) => {
    const xml = parts.get(`xl/worksheets/sheet${i + 1}.xml`)!.toString();
    const rows = [...xml.matchAll(/<row [^>]*>(.*?)<\/row>/g)].map((row) =>
      [
        ...row[1]!.matchAll(/<c r="[A-Z]+\d+"( s="1")?[^>]*>(?:<v>([^<]*)<\/v>|<is><t[^>]*>([^<]*)<\/t><\/is>)<\/c>/g),
      ].map((c) => ({ value: c[2] ?? c[3]!, date: c[1] !== undefined })),
    );
    sheets.set(name, rows);
  });
  return sheets;
}

/** A date cell's serial as YYYY-MM-DD: serial 25569 is 1970-01-01 in Excel's 1900 system. */
export function serialToIso(serial: number): string {
  return new Date((serial - 25569) * 86_400_000).toISOString().slice(0, 10);
}
