import { fencedBlocks } from '../../src/domain/code-cells.js';
import { languageFromLabel, type Language } from '../../src/domain/execution.js';

/** Code as it runs: the body of a fence the user typed around it, in the language its tag names. */
export interface UnfencedCode {
  code: string;
  /** The fence's tag (```py, ```bash …) when it named a language the sandbox runs; else undefined. */
  language?: Language;
}

/** ```tag code``` on one line: Discord's string options hold one line, so a typed fence arrives like this. */
const ONE_LINE_FENCE = /^```([^\n`]*?)```$/;
/** `code` in single backticks. */
const INLINE_CODE = /^`([^`\n]+)`$/;

/**
 * The code of `/run`'s code option (or a modal's program) without the markdown fence around it. A one-line
 * fence (```python print(6*7)```) loses its fence, and its first word too when that word names a language
 * (```python, ```py, ```sh, ```js …): ```print(1)``` keeps `print(1)`, while ```import os``` keeps `import os`
 * (import is no language). A multi-line text made of fenced blocks runs their bodies in order (blocks in one
 * language; the first block's tag decides); text that is not fenced is returned as is. Pure.
 */
export function unfenceCode(raw: string): UnfencedCode {
  const text = raw.trim();
  if (!text.startsWith('`')) return { code: raw };
  const inline = INLINE_CODE.exec(text);
  if (inline && !text.startsWith('``')) return { code: inline[1]!.trim() };
  const oneLine = ONE_LINE_FENCE.exec(text);
  if (oneLine) return oneLineFence(oneLine[1]!);
  const { cells } = fencedBlocks(text);
  const first = cells[0];
  if (!first) return { code: raw };
  const body = cells.filter((c) => c.language === first.language).map((c) => c.code);
  const tag = /^```[ \t]*([A-Za-z0-9_+.-]+)[ \t]*\n/.exec(text)?.[1];
  const language = tag ? languageFromLabel(tag) : undefined;
  return { code: body.join('\n'), ...(language ? { language } : {}) };
}

function oneLineFence(inner: string): UnfencedCode {
  const match = /^([A-Za-z0-9_+.-]+)[ \t]+([\s\S]+)$/.exec(inner.trim());
  const language = match ? languageFromLabel(match[1]!) : undefined;
  if (match && language) return { code: match[2]!.trim(), language };
  return { code: inner.trim() };
}
