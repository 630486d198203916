/**
 * The top-level modules Python code imports, read from its text: a tokenizer that skips strings and comments and
 * looks at `import` and `from … import` statements. Nothing is executed, nothing is evaluated; dynamic imports
 * (`__import__`, `importlib.import_module`) are not seen. Relative imports (`from . import x`) are local, not packages.
 */
export function importedModules(code: string): string[] {
  const found = new Set<string>();
  for (const statement of statements(code)) {
    const from = /^from\s+([A-Za-z_][\w.]*)\s+import\b/.exec(statement);
    if (from) {
      found.add(from[1]!.split('.')[0]!);
      continue;
    }
    const plain = /^import\s+(.+)$/s.exec(statement);
    if (!plain) continue;
    for (const part of plain[1]!.split(',')) {
      const name = /^\s*([A-Za-z_]\w*)/.exec(part);
      if (name) found.add(name[1]!);
    }
  }
  return [...found];
}

const STRING_START = /^(?:[rRbBuUfF]{0,2})("""|'''|"|')/;

/**
 * The simple statements of the code, with strings blanked and comments removed: logical lines (joined across
 * brackets and backslash continuations) split at `;` and after a compound statement's `:` (`try: import x`).
 * IPython lines (`%magic`, `!shell`) are skipped.
 */
function statements(code: string): string[] {
  const out: string[] = [];
  let current = '';
  let depth = 0;
  let lineStart = true;
  let i = 0;
  const end = (): void => {
    for (const piece of current.split(/[;:]/)) if (piece.trim()) out.push(piece.trim());
    current = '';
  };
  while (i < code.length) {
    const ch = code[i]!;
    if (lineStart && depth === 0) {
      lineStart = false;
      const rest = /^[ \t]*([%!])/.exec(code.slice(i, i + 64));
      if (rest) {
        const next = code.indexOf('\n', i);
        i = next === -1 ? code.length : next + 1;
        lineStart = true;
        continue;
      }
    }
    const quote = /[rRbBuUfF"']/.test(ch) ? STRING_START.exec(code.slice(i, i + 5)) : null;
    // A prefix letter only starts a string when it does not continue a name (`bar"` is not a string start).
    if (quote && !(quote[0].length > 1 && /\w/.test(code[i - 1] ?? ''))) {
      i = skipString(code, i + quote[0].length, quote[1]!);
      current += ' "" ';
      continue;
    }
    if (ch === '#') {
      const next = code.indexOf('\n', i);
      i = next === -1 ? code.length : next;
      continue;
    }
    if (ch === '\\' && code[i + 1] === '\n') {
      i += 2;
      current += ' ';
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') depth += 1;
    if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth -= 1;
    if (ch === '\n' && depth === 0) {
      end();
      lineStart = true;
    } else {
      current += ch;
    }
    i += 1;
  }
  end();
  return out;
}

/** The index just past the string that starts at `i` (after its opening quote), or the end of an unclosed one. */
function skipString(code: string, i: number, quote: string): number {
  const triple = quote.length === 3;
  while (i < code.length) {
    const ch = code[i]!;
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (!triple && ch === '\n') return i; // an unclosed one-line string ends at the line (a syntax error anyway)
    if (code.startsWith(quote, i)) return i + quote.length;
    i += 1;
  }
  return i;
}
