// Messages to DOM: markdown through marked, highlighted code, sanitised with DOMPurify.
import { marked } from '/vendor/marked.js';
import DOMPurify from '/vendor/purify.js';
import hljs from '/vendor/highlight.js';
import python from '/vendor/hljs/python.js';
import bash from '/vendor/hljs/bash.js';
import shell from '/vendor/hljs/shell.js';
import json from '/vendor/hljs/json.js';
import javascript from '/vendor/hljs/javascript.js';
import typescript from '/vendor/hljs/typescript.js';
import sql from '/vendor/hljs/sql.js';
import plaintext from '/vendor/hljs/plaintext.js';
import xml from '/vendor/hljs/xml.js';
import css from '/vendor/hljs/css.js';
import yaml from '/vendor/hljs/yaml.js';
import markdown from '/vendor/hljs/markdown.js';
import r from '/vendor/hljs/r.js';
import { bracketFigures, figuresLine, markFigures } from '/figure-marks.js';
import { api } from '/api-client.js';

const languages = { python, bash, shell, json, javascript, typescript, sql, plaintext, xml, css, yaml, markdown, r };
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);

/** Highlighted HTML of a piece of code (escaped by highlight.js). */
export function highlight(code, language) {
  const lang = language && hljs.getLanguage(language) ? language : 'plaintext';
  return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
}

marked.use({
  gfm: true,
  breaks: true,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      const safe = language.replace(/[^\w-]/g, '');
      return `<pre><code class="hljs language-${safe}">${highlight(text, language)}</code></pre>`;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Markdown to sanitised HTML. */
export function markdownToHtml(text) {
  return DOMPurify.sanitize(marked.parse(text ?? ''));
}

/** Creates an element with classes and text (never HTML). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatMs(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function codeBlock(code, language) {
  const pre = el('pre');
  const codeEl = el('code', `hljs language-${language}`);
  codeEl.innerHTML = highlight(code, language);
  pre.append(codeEl);
  return pre;
}

/** A query's step: the source, its rows and time, the SQL, then the code that loaded it and its preview. */
function renderQuery(run, open) {
  const q = run.query;
  const details = el('details', `run query status-${run.status}`);
  details.open = open;
  const rows = `${q.rows.toLocaleString('en-US')} row${q.rows === 1 ? '' : 's'}${q.cut ? ` (cut at the ${q.cut} cap)` : ''}`;
  details.append(
    el('summary', '', `query · ${q.source} · ${rows} · ${formatMs(q.ms)} → ${q.name}`),
    codeBlock(q.sql, 'sql'),
    codeBlock(run.code, run.language),
  );
  if (run.outputExcerpt) details.append(el('pre', 'output', run.outputExcerpt));
  return details;
}

function renderRun(run, open) {
  if (run.query) return renderQuery(run, open);
  const details = el('details', `run status-${run.status}`);
  details.open = open;
  details.append(
    el('summary', '', `${run.language} · ${run.status} · ${formatMs(run.durationMs)}`),
    codeBlock(run.code, run.language),
  );
  if (run.outputExcerpt) details.append(el('pre', 'output', run.outputExcerpt));
  return details;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A small document-with-arrow icon (emoji fonts are not everywhere). */
function fileIcon() {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', '16');
  svg.setAttribute('height', '16');
  svg.setAttribute('class', 'file-icon');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG_NS, 'path');
  path.setAttribute('d', 'M14 2H6a2 2 0 00-2 2v16a2 2 0 002 2h12a2 2 0 002-2V8zM14 2v6h6M12 11v6M9 14l3 3 3-3');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '2');
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  svg.append(path);
  return svg;
}

function fileLink(file, className) {
  const a = el('a', className);
  a.href = `${file.url}?download=1`;
  a.download = file.name;
  a.append(fileIcon(), el('span', 'file-name', file.name), el('span', 'file-size', formatBytes(file.bytes)));
  if (file.description) a.title = file.description;
  return a;
}

/**
 * A DataFrame as a real table, scrollable both ways. Built with DOM nodes and textContent only: the cells come
 * from the user's code, and nothing of them is ever parsed as HTML.
 */
function renderTable(table) {
  const figure = el('figure', 'data-table');
  const wrap = el('div', 'table-scroll');
  const tableEl = el('table');
  const head = el('thead');
  const headRow = el('tr');
  table.columns.forEach((c, i) => headRow.append(el('th', table.numeric[i] ? 'num' : '', c)));
  head.append(headRow);
  const body = el('tbody');
  for (const row of table.rows) {
    const tr = el('tr');
    row.forEach((c, i) => tr.append(el('td', table.numeric[i] ? 'num' : '', c)));
    body.append(tr);
  }
  tableEl.append(head, body);
  const more = table.totalRows - table.rows.length;
  if (more > 0) {
    const foot = el('tfoot');
    const tr = el('tr');
    const td = el('td', 'more-rows', `… ${more.toLocaleString('en-US')} more row${more === 1 ? '' : 's'}`);
    td.colSpan = Math.max(1, table.columns.length);
    tr.append(td);
    foot.append(tr);
    tableEl.append(foot);
  }
  wrap.append(tableEl);
  const caption = el('figcaption', '', table.caption);
  if (table.csv) {
    const a = el('a', 'table-csv', `Download ${table.csv.name}`);
    a.href = `${table.csv.url}?download=1`;
    a.download = table.csv.name;
    caption.append(' ', a);
  }
  figure.append(wrap, caption);
  return figure;
}

/** One stored message (user or bot) as an article element. */
export function renderMessage(message) {
  const bot = message.role === 'bot';
  const article = el('article', `msg ${bot ? 'bot' : 'user'} kind-${message.kind ?? 'user'}`);
  article.dataset.id = message.id;
  const avatar = el('div', 'avatar', bot ? 'TL' : 'You');
  const body = el('div', 'body');
  const meta = el('div', 'meta');
  meta.append(
    el('span', 'who', bot ? 'Threadlab' : 'You'),
    el('time', '', new Date(message.createdAtMs).toLocaleTimeString()),
  );
  body.append(meta);
  if (bot && message.thinking) {
    // The model's thinking, folded away: plain text, never rendered as markdown or HTML.
    const thinking = el('details', 'thinking');
    thinking.append(el('summary', '', 'Thinking'), el('pre', 'thinking-text', message.thinking));
    body.append(thinking);
  }
  const runs = message.runs ?? [];
  if (runs.length) {
    const box = el('div', 'runs');
    runs.forEach((run) => box.append(renderRun(run, !message.text)));
    body.append(box);
  }
  // The answer's figures checked against the runs' output: each marked in the text, and a line below it.
  const figures = bot && message.figures?.line ? message.figures : undefined;
  if (message.text) {
    const text = el('div', 'text markdown');
    if (figures?.marks?.length) {
      const { markdown, used } = bracketFigures(message.text, figures.marks);
      text.innerHTML = markdownToHtml(markdown);
      markFigures(text, used);
    } else text.innerHTML = markdownToHtml(message.text);
    // Images the answer linked stand where the model put them; they enlarge like the charts below.
    text.querySelectorAll('img').forEach((img) => img.classList.add('chart'));
    body.append(text);
  }
  for (const table of message.tables ?? []) body.append(renderTable(table));
  if (message.attachments?.length) {
    const box = el('div', 'attachments');
    message.attachments.forEach((a) => box.append(fileLink(a, 'file chip')));
    body.append(box);
  }
  const below = (message.images ?? []).filter((image) => !image.inline);
  if (below.length) {
    const box = el('div', 'images');
    for (const image of below) {
      const figure = el('figure');
      const img = el('img', 'chart');
      img.src = image.url;
      img.alt = image.alt || image.name;
      img.title = 'Click to enlarge';
      figure.append(img);
      if (image.alt) figure.append(el('figcaption', '', image.alt));
      box.append(figure);
    }
    body.append(box);
  }
  if (message.files?.length) {
    const box = el('div', 'files');
    message.files.forEach((f) => box.append(fileLink(f, 'file download')));
    body.append(box);
  }
  for (const o of message.omitted ?? []) {
    body.append(el('div', 'omitted', `${o.name} (${formatBytes(o.bytes)}) not attached: ${o.reason}`));
  }
  if (figures) body.append(figuresLine(figures));
  if (message.footer) {
    const f = message.footer;
    const parts = [`${f.runs} run${f.runs === 1 ? '' : 's'}`, formatMs(f.durationMs)];
    if (f.tokens) parts.push(`${f.tokens} tokens`);
    if (f.model) parts.push(f.model);
    body.append(el('div', 'footer', parts.join(' · ')));
  }
  if (message.feedback) body.append(feedbackControls(message.threadId, message.id));
  article.append(avatar, body);
  return article;
}

/** 👍/👎 under an answer of the model; the pressed one shows the choice, then a short comment field may follow. */
function feedbackControls(threadId, messageId) {
  const box = el('div', 'feedback');
  const status = el('span', 'feedback-status', '');
  const comment = el('input', 'feedback-comment');
  comment.type = 'text';
  comment.maxLength = 500;
  comment.placeholder = 'Add a comment (optional, Enter to send)';
  comment.hidden = true;
  let chosen;
  const buttons = [];
  const send = async (verdict, text) => {
    try {
      await api.feedback(threadId, messageId, verdict, text);
      chosen = verdict;
      for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.verdict === verdict));
      status.textContent = text ? 'Thanks, comment sent.' : 'Thanks.';
      comment.hidden = Boolean(text);
    } catch (err) {
      status.textContent = err.message;
    }
  };
  for (const [verdict, label, title] of [
    ['good', '👍', 'Good answer'],
    ['bad', '👎', 'Bad answer'],
  ]) {
    const b = el('button', 'feedback-button', label);
    b.type = 'button';
    b.title = title;
    b.dataset.verdict = verdict;
    b.setAttribute('aria-pressed', 'false');
    b.addEventListener('click', () => void send(verdict));
    buttons.push(b);
  }
  comment.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || !chosen || !comment.value.trim()) return;
    e.preventDefault();
    void send(chosen, comment.value.trim());
    comment.value = '';
  });
  box.append(...buttons, comment, status);
  return box;
}
