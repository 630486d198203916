// Marks the figures of a rendered answer with where each was found (adapters/web/API.md, `figures`).
//
// The answer is Markdown rendered by marked and sanitised by DOMPurify, so no HTML is ever put into it.
// Instead each figure is bracketed in the Markdown by private-use characters (which Markdown treats as
// ordinary text), and after rendering and sanitising the bracketed runs of text nodes are wrapped in
// <mark> elements made with DOM APIs. The bracket carries the mark's index, so a figure Markdown dropped
// or moved (into a link's address, say) cannot shift the others.

/** U+E000–U+E1FF are reserved here: the brackets and the indexes. Stripped from the text before use. */
const OPEN = '\uE000';
const CLOSE = '\uE001';
const INDEX_BASE = 0xe100;
/** Figures marked in one answer at most (the checker sends at most 200). */
export const MAX_MARKS = 256;
const RESERVED = /[\uE000-\uE1FF]/g;
const HAS_RESERVED = /[\uE000-\uE1FF]/;
/** The reserved characters as a URL encodes them in UTF-8 (marked percent-encodes link addresses). */
const RESERVED_ENCODED = /%EE%8[0-7]%[89AB][0-9A-F]/gi;
const BRACKETED = /\uE000([\uE100-\uE1FF])([^\uE000\uE001]*)\uE001/g;

// The DOM's SHOW_TEXT and Node.TEXT_NODE.
const SHOW_TEXT = 4;
const TEXT_NODE = 3;

const strip = (text) => text.replace(RESERVED, '');

/**
 * The Markdown with each figure bracketed, and the marks the brackets index. A mark is used only when its
 * `text` stands at `start`–`end` of `text` (UTF-16 offsets) and it does not overlap the one before.
 */
export function bracketFigures(text, marks) {
  const used = [];
  let out = '';
  let pos = 0;
  for (const mark of marks ?? []) {
    if (used.length >= MAX_MARKS) break;
    const { start, end } = mark;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < pos || end <= start) continue;
    if (text.slice(start, end) !== mark.text || strip(mark.text) !== mark.text) continue;
    out += `${strip(text.slice(pos, start))}${OPEN}${String.fromCharCode(INDEX_BASE + used.length)}${mark.text}${CLOSE}`;
    used.push(mark);
    pos = end;
  }
  return { markdown: out + strip(text.slice(pos)), used };
}

/** One figure's <mark>: found ones are underlined, missing ones stand out; the title says where it came from. */
function markElement(mark, text) {
  const node = document.createElement('mark');
  node.className = `figure ${mark.found ? 'found' : 'missing'}`;
  node.textContent = text;
  // The title is the mark's accessible description as well as its tooltip.
  node.setAttribute('title', String(mark.title ?? ''));
  node.dataset.figure = mark.found ? 'found' : 'missing';
  return node;
}

/** Replaces one text node by its text and marks, when it holds a whole bracketed figure. */
function markTextNode(node, used) {
  const value = node.nodeValue ?? '';
  if (!HAS_RESERVED.test(value)) return;
  const parts = [];
  let pos = 0;
  for (const match of value.matchAll(BRACKETED)) {
    const mark = used[match[1].charCodeAt(0) - INDEX_BASE];
    if (match.index > pos) parts.push(document.createTextNode(strip(value.slice(pos, match.index))));
    parts.push(mark ? markElement(mark, match[2]) : document.createTextNode(match[2]));
    pos = match.index + match[0].length;
  }
  if (pos < value.length) parts.push(document.createTextNode(strip(value.slice(pos))));
  node.replaceWith(...parts.filter((p) => p.nodeType !== TEXT_NODE || p.nodeValue));
}

/**
 * Wraps the bracketed figures of rendered, sanitised HTML (inside `root`) in <mark> elements, and removes
 * every stray bracket: one split across elements (a figure highlighted inside code), or one in an attribute.
 */
export function markFigures(root, used) {
  const walker = document.createTreeWalker(root, SHOW_TEXT);
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  for (const node of nodes) markTextNode(node, used);
  for (const element of root.querySelectorAll('*')) {
    for (const attr of [...element.attributes]) {
      const clean = attr.value.replace(RESERVED, '').replace(RESERVED_ENCODED, '');
      if (clean !== attr.value) element.setAttribute(attr.name, clean);
    }
  }
}

/** The line under the answer: "✓ 6 figures checked against run output" or "⚠ 1 figure not found …". */
export function figuresLine(figures) {
  const node = document.createElement('div');
  node.className = `figures-line ${figures.notFound > 0 ? 'missing' : 'found'}`;
  node.textContent = figures.line;
  return node;
}
