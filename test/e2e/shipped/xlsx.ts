import { writeZip } from '../../../src/replies/zip.js';

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const ns = 'http://schemas.openxmlformats.org';

/** A relationships part with one relationship of `type` to `target`. */
function relationships(type: string, target: string): Buffer {
  return Buffer.from(
    `${XML}<Relationships xmlns="${ns}/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/${type}" Target="${target}"/>` +
      '</Relationships>',
  );
}

function cell(ref: string, value: string | number): string {
  return typeof value === 'number'
    ? `<c r="${ref}"><v>${value}</v></c>`
    : `<c r="${ref}" t="inlineStr"><is><t>${value}</t></is></c>`;
}

/**
 * A minimal but real Office Open XML workbook (one sheet, inline strings), as Excel writes it closely
 * enough for openpyxl: a user's spreadsheet without a spreadsheet library in the tests.
 */
export async function xlsxWorkbook(rows: (string | number)[][]): Promise<Buffer> {
  const sheetRows = rows
    .map(
      (row, r) =>
        `<row r="${r + 1}">${row.map((v, c) => cell(`${String.fromCharCode(65 + c)}${r + 1}`, v)).join('')}</row>`,
    )
    .join('');
  return writeZip([
    {
      name: '[Content_Types].xml',
      data: Buffer.from(
        `${XML}<Types xmlns="${ns}/package/2006/content-types">` +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
          '<Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
          '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
          '</Types>',
      ),
    },
    { name: '_rels/.rels', data: relationships('officeDocument', 'xl/workbook.xml') },
    {
      name: 'xl/workbook.xml',
      data: Buffer.from(
        `${XML}<workbook xmlns="${ns}/spreadsheetml/2006/main" xmlns:r="${ns}/officeDocument/2006/relationships">` +
          '<sheets><sheet name="Sales" sheetId="1" r:id="rId1"/></sheets></workbook>',
      ),
    },
    { name: 'xl/_rels/workbook.xml.rels', data: relationships('worksheet', 'worksheets/sheet1.xml') },
    {
      name: 'xl/worksheets/sheet1.xml',
      data: Buffer.from(
        `${XML}<worksheet xmlns="${ns}/spreadsheetml/2006/main"><sheetData>${sheetRows}</sheetData></worksheet>`,
      ),
    },
  ]);
}
