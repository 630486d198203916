import { describe, expect, it } from 'vitest';
import { formatTable, parseHtmlTable, readTableDisplay } from '../../../src/replies/tables.js';

describe('formatTable', () => {
  it('pads columns, right-aligns numbers and rules the header', () => {
    const text = formatTable({
      columns: ['city', 'population', 'share'],
      rows: [
        ['Oslo', 709037, '12.5%'],
        ['Bergen', 291940, '5.1%'],
        ['Tromsø', null, ''],
      ],
    });
    expect(text.split('\n')).toEqual([
      'city    population  share',
      '------  ----------  -----',
      'Oslo        709037  12.5%',
      'Bergen      291940   5.1%',
      'Tromsø',
    ]);
  });

  it('cuts long cells and flattens newlines', () => {
    const text = formatTable({ columns: ['note'], rows: [['a\nb'], ['x'.repeat(50)]] }, { maxCellChars: 10 });
    expect(text.split('\n').slice(2)).toEqual(['a b', `${'x'.repeat(9)}…`]);
  });
});

describe('parseHtmlTable', () => {
  it('reads a pandas to_html table, entities decoded', () => {
    const html = `<div><table border="1" class="dataframe"><thead><tr style="text-align: right;"><th></th><th>name</th><th>score</th></tr></thead>
      <tbody><tr><th>0</th><td>A &amp; B</td><td>1.5</td></tr><tr><th>1</th><td>&lt;c&gt;</td><td>2</td></tr></tbody></table></div>`;
    expect(parseHtmlTable(html)).toEqual({
      columns: ['', 'name', 'score'],
      rows: [
        ['0', 'A & B', '1.5'],
        ['1', '<c>', '2'],
      ],
    });
  });
});

describe('readTableDisplay', () => {
  it('uses pandas text/plain and reads the shape of an abbreviated frame', () => {
    const plain = '      a    b\n0     1    2\n..   ..   ..\n999   5    6\n\n[1000 rows x 2 columns]';
    const t = readTableDisplay({ data: { 'text/html': '<table></table>', 'text/plain': plain } });
    expect(t).toMatchObject({ rows: 1000, columns: 2, abbreviated: true });
  });

  it('formats an HTML-only table and ignores non-tables', () => {
    const t = readTableDisplay({ data: { 'text/html': '<table><tr><th>k</th></tr><tr><td>1</td></tr></table>' } });
    expect(t).toEqual({ text: 'k\n-\n1', rows: 1, columns: 1, abbreviated: false });
    expect(readTableDisplay({ data: { 'text/plain': '42' } })).toBeUndefined();
  });
});

describe('readTableDisplay on real pandas output', () => {
  it('is not fooled by "..." inside a cell', () => {
    const plain = '   a     note\n0  1  a ... b\n1  2        c';
    expect(readTableDisplay({ data: { 'text/html': '<table></table>', 'text/plain': plain } })?.abbreviated).toBe(
      false,
    );
  });
});
