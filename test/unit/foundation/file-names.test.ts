import { describe, expect, it } from 'vitest';
import { safeFileName } from '../../../src/domain/file-names.js';

describe('safeFileName (every adapter names uploads with it)', () => {
  it('keeps only the base name, without leading dots, control or shell-special characters', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Users\\me\\data.csv')).toBe('data.csv');
    expect(safeFileName('..hidden')).toBe('hidden');
    expect(safeFileName('a\u0000b<c>.csv')).toBe('ab_c_.csv');
    expect(safeFileName('a;rm -rf $HOME.txt')).toBe('a_rm_-rf_HOME.txt');
    expect(safeFileName('sales Q1.csv')).toBe('sales_Q1.csv');
    expect(safeFileName('Umsätze 2024.xlsx')).toBe('Umsätze_2024.xlsx');
  });

  it('never returns an empty name, and keeps the extension when shortening', () => {
    expect(safeFileName('', 'F1')).toBe('F1');
    expect(safeFileName('...')).toBe('file');
    const long = safeFileName(`${'x'.repeat(300)}.xlsx`);
    expect(long).toHaveLength(100);
    expect(long.endsWith('.xlsx')).toBe(true);
  });
});
