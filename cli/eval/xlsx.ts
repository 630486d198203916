import { writeZip } from '../../src/replies/zip.js';
import type { Cell, Table } from './table.js';

/** One worksheet of a workbook. */
export interface Sheet {
  name: string;
  table: Table;
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const NS = 'http://schemas.openxmlformats.org';
const MAIN = `${NS}/spreadsheetml/2006/main`;
const REL = `${NS}/officeDocument/2006/relationships`;
/** A fixed time for the archive's entries, so the same data gives the same bytes. */
const STAMP = new Date(2024, 0, 1);
/** Day 0 of Excel's 1900 date system as Excel counts it (its phantom 29 Feb 1900 included). */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** A column's letters: 0 → A, 25 → Z, 26 → AA. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** The serial number Excel stores for a calendar date (`YYYY-MM-DD`). */
export function excelSerial(isoDate: string): number {
  return (Date.parse(`${isoDate}T00:00:00Z`) - EXCEL_EPOCH_MS) / 86_400_000;
}

function cellXml(ref: string, cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return `<c r="${ref}"><v>${cell}</v></c>`;
  // Style 1 is a date format, so spreadsheet programs and pandas read the serial as a date.
  if (typeof cell === 'object') return `<c r="${ref}" s="1"><v>${excelSerial(cell.date)}</v></c>`;
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(cell)}</t></is></c>`;
}

function sheetXml(table: Table): string {
  const rows = [table.columns, ...table.rows].map(
    (row, r) => `<row r="${r + 1}">${row.map((cell, c) => cellXml(`${columnName(c)}${r + 1}`, cell)).join('')}</row>`,
  );
  return `${XML}<worksheet xmlns="${MAIN}"><sheetData>${rows.join('')}</sheetData></worksheet>`;
}

function relationships(items: { type: string; target: string }[]): Buffer {
  const rels = items.map((r, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/${r.type}" Target="${r.target}"/>`);
  return Buffer.from(`${XML}<Relationships xmlns="${NS}/package/2006/relationships">${rels.join('')}</Relationships>`);
}

const STYLES =
  `${XML}<styleSheet xmlns="${MAIN}">` +
  '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>' +
  '</styleSheet>';

/**
 * A real Office Open XML workbook (several sheets, numbers, inline strings and date cells), enough for Excel,
 * LibreOffice and openpyxl: the eval's spreadsheets without a spreadsheet library.
 */
export async function writeXlsx(sheets: Sheet[]): Promise<Buffer> {
  const sheetType = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  const overrides = sheets.map(
    (_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${sheetType}.worksheet+xml"/>`,
  );
  const types =
    `${XML}<Types xmlns="${NS}/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/xl/workbook.xml" ContentType="${sheetType}.sheet.main+xml"/>` +
    `<Override PartName="/xl/styles.xml" ContentType="${sheetType}.styles+xml"/>` +
    `${overrides.join('')}</Types>`;
  const workbook =
    `${XML}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>` +
    sheets.map((s, i) => `<sheet name="${escapeXml(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
    '</sheets></workbook>';
  const workbookRels = [
    ...sheets.map((_, i) => ({ type: 'worksheet', target: `worksheets/sheet${i + 1}.xml` })),
    { type: 'styles', target: 'styles.xml' },
  ];
  const entries = [
    { name: '[Content_Types].xml', data: Buffer.from(types) },
    { name: '_rels/.rels', data: relationships([{ type: 'officeDocument', target: 'xl/workbook.xml' }]) },
    { name: 'xl/workbook.xml', data: Buffer.from(workbook) },
    { name: 'xl/_rels/workbook.xml.rels', data: relationships(workbookRels) },
    { name: 'xl/styles.xml', data: Buffer.from(STYLES) },
    ...sheets.map((s, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: Buffer.from(sheetXml(s.table)) })),
  ];
  return writeZip(entries.map((e) => ({ ...e, modified: STAMP })));
}
