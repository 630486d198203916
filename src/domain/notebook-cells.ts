import type { CodeCell } from './code-cells.js';
import { languageFromLabel, LANGUAGES } from './execution.js';

/** The code cells of a notebook in order, or why it cannot be read (a sentence for the user). */
export type NotebookCells = { cells: CodeCell[]; markdownCells: number } | { invalid: string };

/**
 * Reads a Jupyter notebook (nbformat 4, `.ipynb` JSON): its code cells in order, in the language of its kernel
 * (`metadata.kernelspec.language`, else `metadata.language_info.name`; python when it names none). Markdown and
 * raw cells are skipped; empty code cells too. Anything else than a readable nbformat 4 document is `invalid`,
 * with what is wrong. Pure: the text is not trusted.
 */
export function notebookCells(text: string): NotebookCells {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { invalid: 'it is not valid JSON (a .ipynb file is a JSON document)' };
  }
  if (!isObject(doc)) return { invalid: 'it is not a notebook: the JSON is not an object' };
  if (doc.nbformat !== 4)
    return {
      invalid: `it is nbformat ${typeof doc.nbformat === 'number' ? doc.nbformat : 'unknown'}, and only nbformat 4 is read (save it again with a recent Jupyter)`,
    };
  if (!Array.isArray(doc.cells)) return { invalid: 'it has no `cells` list' };
  const language = kernelLanguage(doc.metadata);
  if ('invalid' in language) return language;
  const cells: CodeCell[] = [];
  let markdownCells = 0;
  for (const [index, cell] of doc.cells.entries()) {
    if (!isObject(cell) || typeof cell.cell_type !== 'string') return { invalid: `cell ${index + 1} has no cell_type` };
    if (cell.cell_type !== 'code') {
      markdownCells += 1;
      continue;
    }
    const source = sourceText(cell.source);
    if (source === undefined) return { invalid: `code cell ${index + 1} has no source text` };
    if (source.trim() !== '') cells.push({ language: language.language, code: source });
  }
  return { cells, markdownCells };
}

function kernelLanguage(metadata: unknown): { language: CodeCell['language'] } | { invalid: string } {
  const meta = isObject(metadata) ? metadata : {};
  const spec = isObject(meta.kernelspec) ? meta.kernelspec : {};
  const info = isObject(meta.language_info) ? meta.language_info : {};
  const named = typeof spec.language === 'string' ? spec.language : typeof info.name === 'string' ? info.name : '';
  if (named === '') return { language: 'python' };
  const language = languageFromLabel(named);
  if (language) return { language };
  return {
    invalid: `its kernel's language is ${JSON.stringify(named.slice(0, 40))}, and the sandbox runs ${LANGUAGES.join(', ')}`,
  };
}

/** A cell's source: a string, or a list of strings joined as they are (each keeps its own newline). */
function sourceText(source: unknown): string | undefined {
  if (typeof source === 'string') return source;
  if (Array.isArray(source) && source.every((s) => typeof s === 'string')) return source.join('');
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
