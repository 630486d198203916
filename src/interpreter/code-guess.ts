import type { Language } from '../domain/execution.js';

/**
 * The language of an unlabelled fenced block, for the text protocol: models without tool calling often write
 * their code in a bare ``` fence, and the same models put output, tables and data in bare fences too. A block is
 * read as code only on strong evidence (Python statements, a shell command line), so output is never run; a
 * block with no such evidence stays shown, as before.
 */

/** Lines that only Python writes. */
const PYTHON_STRONG = [
  /^\s*(import\s+[A-Za-z_][\w.]*(\s+as\s+\w+)?(\s*,\s*[A-Za-z_][\w.]*)*|from\s+[A-Za-z_.][\w.]*\s+import\s+.+)\s*$/,
  /^\s*print\s*\(.*\)\s*$/,
  /^\s*(def|class)\s+[A-Za-z_]\w*\s*[(:]/,
  /^\s*(for|while|if|elif|with|try)\b.*:\s*(#.*)?$/,
  /\b(pd|np|plt|sns|df)\.[A-Za-z_]\w*\s*[([]/,
  /^\s*[A-Za-z_][\w.]*\(.*\)\s*$/,
];
/** An assignment: Python, but also what printed output looks like (`total = 45`), so it only supports. */
const PYTHON_ASSIGNMENT = /^\s*[A-Za-z_][\w.]*(\[[^\]]+\])?\s*[-+*/]?=\s*[^=].*$/;
/** What output looks like: a traceback, a prompt's echo, a table's rule. */
const OUTPUT = [/Traceback \(most recent call last\)/, /^\s*(>>>|In \[\d+\]:|Out\[\d+\]:)/m, /^\s*[-=+|]{5,}\s*$/m];
/** Commands a shell block starts with. */
const SHELL_COMMAND =
  /^\s*(\$\s+)?(ls|cat|head|tail|wc|grep|find|du|df|echo|pip3?|python3?|cd|mkdir|cp|mv|rm|file|sort|uniq|cut|awk|sed|tr|unzip|tar|gzip|printf|stat|env|which|pwd|date|jq|csvlook|sqlite3)(\s|$)/;

/**
 * The language the block's body is written in, when the evidence is strong: Python when at least half of its
 * non-blank, non-comment lines are Python statements (and at least one is one only Python writes: an import, a call, a
 * `def`, a loop); bash when every command
 * line starts with a common shell command or the block has a shell shebang. Undefined otherwise.
 */
export function guessLanguage(code: string, languages: readonly Language[]): Language | undefined {
  if (OUTPUT.some((p) => p.test(code))) return undefined;
  const lines = code.split('\n').filter((l) => l.trim() && !/^\s*#(?!!)/.test(l));
  if (lines.length === 0) return undefined;
  if (/^#!.*\b(ba)?sh\b/.test(code.trimStart()) && languages.includes('bash')) return 'bash';
  if (/^#!.*\bpython/.test(code.trimStart()) && languages.includes('python')) return 'python';
  const strong = lines.filter((l) => PYTHON_STRONG.some((p) => p.test(l))).length;
  const python =
    strong + lines.filter((l) => PYTHON_ASSIGNMENT.test(l) && !PYTHON_STRONG.some((p) => p.test(l))).length;
  // Continuation lines (a call over several lines, a loop's body) count for the lines they follow.
  const indented = lines.filter((l) => /^\s+\S/.test(l) || /^[)\]}]/.test(l.trim())).length;
  if (languages.includes('python') && strong > 0 && (python + indented) * 2 >= lines.length) return 'python';
  if (languages.includes('bash') && lines.every((l) => SHELL_COMMAND.test(l) || /^\s*\|/.test(l))) return 'bash';
  return undefined;
}
