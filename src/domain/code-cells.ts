import { languageFromLabel, type Language } from './execution.js';

/** One piece of code to run as is: a fenced block of a message, or a code cell of a notebook. */
export interface CodeCell {
  language: Language;
  code: string;
}

/** The fenced blocks of a message, in order: those in a language the sandbox runs, and the labels of the rest. */
export interface FencedBlocks {
  cells: CodeCell[];
  /** Labels of blocks in a language the sandbox does not run (```json, ```text), in order. */
  skipped: string[];
}

const LABEL = /^[A-Za-z0-9_+.-]*$/;

/**
 * Every fenced code block of `text`, in order. A block opens with a line starting with three backticks and
 * closes with a line ending with them; besides the ```label form, the one-line ```code``` some chats send and a block whose
 * first line follows the opening backticks (```print(1)) are read too. An unlabelled block is python; a block
 * labelled with a language the sandbox does not run is skipped and named. An unclosed block runs to the end
 * of the text. Pure.
 */
export function fencedBlocks(text: string): FencedBlocks {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const cells: CodeCell[] = [];
  const skipped: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!.trim();
    i += 1;
    if (!line.startsWith('```')) continue;
    const rest = line.slice(3);
    // ```code``` on one line.
    if (rest.length > 3 && rest.endsWith('```')) {
      add({ label: '', code: rest.slice(0, -3) }, cells, skipped);
      continue;
    }
    const labelled = LABEL.test(rest.trim());
    const body: string[] = labelled ? [] : [rest];
    while (i < lines.length) {
      const raw = lines[i]!;
      i += 1;
      const trimmed = raw.trimEnd();
      if (trimmed.trim() === '```') break;
      if (trimmed.endsWith('```')) {
        body.push(trimmed.slice(0, -3));
        break;
      }
      body.push(raw);
    }
    add({ label: labelled ? rest.trim() : '', code: body.join('\n') }, cells, skipped);
  }
  return { cells, skipped };
}

function add(block: { label: string; code: string }, cells: CodeCell[], skipped: string[]): void {
  if (block.code.trim() === '') return;
  const language = languageFromLabel(block.label);
  if (language) cells.push({ language, code: block.code });
  else skipped.push(block.label);
}

/** The extensions of scripts that run as code when sent with `run`, and their language; `.ipynb` is a notebook. */
const SCRIPT_LANGUAGES: Readonly<Record<string, Language | 'notebook'>> = {
  py: 'python',
  r: 'r',
  js: 'javascript',
  sh: 'bash',
  ipynb: 'notebook',
};

/** The script extensions as a user reads them, for messages. */
export const SCRIPT_EXTENSIONS = '.py, .R, .js, .sh or .ipynb';

/** The language a script file's name says (`analysis.R` → r), `notebook` for `.ipynb`, or undefined. */
export function scriptKindOf(name: string): Language | 'notebook' | undefined {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const ext = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(SCRIPT_LANGUAGES, ext) ? SCRIPT_LANGUAGES[ext] : undefined;
}

/** `run` or `/run`, alone or with the name of the attachment to run (the name is group 1). */
export const RUN_WORD = /^\s*\/?run(?:\s+(\S(?:.*\S)?))?\s*$/i;

/** Whether `text` is the bare word `run` (or `/run`), naming nothing. */
export function isRunWord(text: string): boolean {
  const match = RUN_WORD.exec(text);
  return match !== null && match[1] === undefined;
}
