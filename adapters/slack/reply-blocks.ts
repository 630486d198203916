import type { Reply, ReplyFile, RunRecord } from '../../src/domain/reply.js';
import { figuresLine } from '../../src/replies/figures-line.js';
import { formatBytes, formatCount, formatDuration } from '../../src/domain/text/format.js';
import { splitMessage } from '../../src/replies/split-message.js';
import { SLACK_TEXT_LIMITS } from './profile.js';
import { escapeMrkdwn, markdownToMrkdwn } from './slack-text.js';
import { tableMessage } from './table-block.js';
import { feedbackBlock } from './feedback.js';
import type { SlackBlock } from './slack-block.js';

export type { SlackBlock } from './slack-block.js';

/** One `chat.postMessage` worth of content. */
export interface SlackMessagePlan {
  /** Notification and fallback text. */
  text: string;
  blocks: SlackBlock[];
  /** Posted instead when Slack refuses `blocks` (a workspace without table blocks), with its own file. */
  fallback?: { blocks: SlackBlock[]; file?: ReplyFile };
}

/** Everything one Reply turns into: messages in order, then files uploaded into the thread. */
export interface SlackReplyPlan {
  messages: SlackMessagePlan[];
  /** Code snippets and the full text of an answer too long to show inline. */
  files: (ReplyFile & { snippetType?: string })[];
}

export interface ReplyBlocksOptions {
  /** Answers longer than this (in mrkdwn characters) are attached as `answer.md` with a preview. @defaultValue 12000 */
  maxInlineChars?: number;
  /** Blocks per message; Slack refuses more than 50. @defaultValue 50 */
  maxBlocksPerMessage?: number;
  /** Code longer than this many characters or lines is attached as a snippet file. @defaultValue 2500 chars, 40 lines */
  maxInlineCodeChars?: number;
  maxInlineCodeLines?: number;
}

const SECTION_CHARS = SLACK_TEXT_LIMITS.sectionChars;
const EXTENSIONS: Record<RunRecord['language'], string> = { python: 'py', bash: 'sh', r: 'R', javascript: 'js' };

/**
 * Maps a Reply to Block Kit: the answer in sections of at most 3,000 characters, messages of at most 50
 * blocks, the code that ran (inline when short, otherwise a snippet file), omitted files said plainly, the
 * check of the answer's figures and a footer. Nothing is cut: an answer too long for the thread is attached in full.
 */
export function planReply(reply: Reply, options: ReplyBlocksOptions = {}): SlackReplyPlan {
  const maxInline = options.maxInlineChars ?? 12_000;
  const maxBlocks = options.maxBlocksPerMessage ?? 50;
  const files: SlackReplyPlan['files'] = [];
  const prefix = reply.kind === 'error' ? ':warning: ' : '';
  let mrkdwn = prefix + markdownToMrkdwn(reply.text);
  if (mrkdwn.length > maxInline) {
    files.push({
      name: 'answer.md',
      mime: 'text/markdown',
      data: Buffer.from(reply.text, 'utf8'),
      description: 'the full answer',
    });
    const preview = splitMessage(mrkdwn, { maxChars: SECTION_CHARS - 200 })[0] ?? '';
    mrkdwn = `${preview}\n\n_…the answer is ${formatCount(reply.text.length)} characters long; the full text is attached as \`answer.md\`._`;
  }
  const blocks: SlackBlock[] =
    mrkdwn.trim() === ''
      ? []
      : splitMessage(mrkdwn, { maxChars: SECTION_CHARS })
          .filter((chunk) => chunk.trim() !== '') // Slack refuses an empty section
          .map(section);
  blocks.push(...codeBlocks(reply, files, options));
  for (const omitted of reply.omitted ?? []) {
    blocks.push(
      context(
        `:paperclip: \`${escapeMrkdwn(omitted.name)}\` (${formatBytes(omitted.bytes)}) was not attached: ${escapeMrkdwn(omitted.reason)}`,
      ),
    );
  }
  // The check of the answer's figures, just above the timings; escaping can grow it, so it is fitted first.
  const figures = figuresLine(reply, Math.floor(SECTION_CHARS / 5));
  if (figures) blocks.push(context(escapeMrkdwn(figures)));
  if (reply.footer) blocks.push(context(footerText(reply.footer)));
  // 👍/👎 on the model's answers only, last, so they land on the answer's last text message.
  if (reply.feedback && blocks.length > 0) blocks.push(feedbackBlock());
  if (blocks.length === 0)
    blocks.push(section(reply.images.length + reply.files.length > 0 ? 'Done. Results below.' : 'Done.'));

  const messages: SlackMessagePlan[] = [];
  for (let i = 0; i < blocks.length; i += maxBlocks) {
    const chunk = blocks.slice(i, i + maxBlocks);
    messages.push({ text: fallbackText(chunk, reply), blocks: chunk });
  }
  // One table block per message, after the answer; a table Slack cuts comes with its CSV.
  for (const table of reply.tables ?? []) {
    const t = tableMessage(table);
    messages.push({ text: t.text, blocks: t.blocks, fallback: t.fallback });
    if (t.file) files.push(t.file);
  }
  return { messages, files };
}

function codeBlocks(reply: Reply, files: SlackReplyPlan['files'], options: ReplyBlocksOptions): SlackBlock[] {
  const runs = reply.runs;
  const maxChars = options.maxInlineCodeChars ?? 2_500;
  const maxLines = options.maxInlineCodeLines ?? 40;
  const blocks: SlackBlock[] = [];
  runs.forEach((run, i) => {
    const label = `Code ${runs.length > 1 ? `${i + 1} ` : ''}· ${run.language} · ${run.status} · ${formatDuration(run.durationMs)}`;
    // Escaping can grow code (`<` is 4 characters in mrkdwn), so the fenced form must fit a section too.
    const long =
      run.code.length > maxChars ||
      run.code.split('\n').length > maxLines ||
      fence(run.code).length > SECTION_CHARS - 200;
    if (long) {
      const name = `code-${i + 1}.${EXTENSIONS[run.language]}`;
      files.push({
        name,
        mime: 'text/plain',
        data: Buffer.from(run.code, 'utf8'),
        description: label,
        snippetType: run.language,
      });
      blocks.push(context(`:page_facing_up: ${label} — attached as \`${name}\``));
      return;
    }
    // Direct runs already show their output as the answer; do not show it twice.
    const shown = run.outputExcerpt && !reply.text.includes(run.outputExcerpt.trim());
    const output =
      shown && run.outputExcerpt
        ? `\n*Output*\n${fence(tail(run.outputExcerpt, SECTION_CHARS - run.code.length - label.length - 60))}`
        : '';
    blocks.push(context(`:gear: ${label}`), section(`${fence(run.code)}${output}`));
  });
  return blocks;
}

function fence(text: string): string {
  return `\`\`\`\n${escapeMrkdwn(text.replace(/```/g, 'ˋˋˋ'))}\n\`\`\``;
}

/** The end of an output excerpt that fits; the excerpt is already head-and-tail, the full output is a file. */
function tail(text: string, maxChars: number): string {
  const budget = Math.max(200, Math.floor(maxChars / 1.3)); // escaping can grow the text
  return text.length <= budget ? text : `…${text.slice(text.length - budget)}`;
}

function footerText(footer: NonNullable<Reply['footer']>): string {
  const parts = [
    `:stopwatch: ${formatDuration(footer.durationMs)}`,
    `${footer.runs} run${footer.runs === 1 ? '' : 's'}`,
  ];
  if (footer.tokens !== undefined) parts.push(`${formatCount(footer.tokens)} tokens`);
  if (footer.model) parts.push(escapeMrkdwn(footer.model));
  return parts.join(' · ');
}

function fallbackText(blocks: SlackBlock[], reply: Reply): string {
  const first = blocks.find((b) => b.type === 'section') as { text?: { text?: string } } | undefined;
  const text = first?.text?.text ?? reply.text;
  return text.length > 300 ? `${text.slice(0, 299)}…` : text || 'Threadlab';
}

/** A mrkdwn section block. */
export function section(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

/** A small grey context line. */
export function context(text: string): SlackBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: text.slice(0, SECTION_CHARS) }] };
}
