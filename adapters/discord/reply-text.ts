import { fenceLabel } from '../../src/domain/execution.js';
import type { Reply, RunRecord } from '../../src/domain/reply.js';
import { figuresLine } from '../../src/replies/figures-line.js';
import { formatDuration } from '../../src/domain/text/format.js';

/** The figures line is short (three figures named at most); a longer one is cut visibly at this length. */
const MAX_FIGURES_LINE_CHARS = 500;

/** Keeps text from closing a fence it is shown in (Discord has no longer fences to fall back on). */
export function defuseFences(text: string): string {
  return text.replace(/```/g, '``\u200b`');
}

function runText(run: RunRecord): string {
  const parts = [`\`\`\`${fenceLabel(run.language)}\n${defuseFences(run.code.replace(/\n+$/, ''))}\n\`\`\``];
  if (run.outputExcerpt && run.outputExcerpt.trim())
    parts.push(`\`\`\`\n${defuseFences(run.outputExcerpt.replace(/\n+$/, ''))}\n\`\`\``);
  if (run.status !== 'ok') parts.push(`Status: **${run.status}** after ${formatDuration(run.durationMs)}`);
  return parts.join('\n');
}

/** Backslash-escapes Discord's inline markdown, so a figure such as `*5*` is shown as written. */
function escapeInline(text: string): string {
  return text.replace(/[\\*_~`|]/g, '\\$&');
}

/**
 * The small lines under the answer: the check of its figures ("✓ 6 figures checked against run output") and
 * the timings, as Discord subtext. Empty when there is neither.
 */
export function replyFooterMarkdown(reply: Reply): string {
  const lines: string[] = [];
  const figures = figuresLine(reply, MAX_FIGURES_LINE_CHARS);
  if (figures) lines.push(`-# ${escapeInline(figures)}`);
  if (reply.footer) {
    const f = reply.footer;
    const bits = [`⏱ ${formatDuration(f.durationMs)}`, `${f.runs} run${f.runs === 1 ? '' : 's'}`];
    if (f.model) bits.push(f.model);
    lines.push(`-# ${bits.join(' · ')}`);
  }
  return lines.join('\n');
}

/**
 * The markdown of a reply for Discord, as its body (the text or, when there is none, the runs with their
 * output, and notes on files that could not be attached) and its footer ({@link replyFooterMarkdown}).
 */
export function replyParts(
  reply: Reply,
  extraOmitted: { name: string; reason: string }[] = [],
): { body: string; footer: string } {
  const sections: string[] = [];
  const text = reply.text.trim();
  if (text) sections.push(reply.kind === 'error' && !text.startsWith('⚠') ? `⚠️ ${text}` : text);
  else if (reply.runs.length > 0) sections.push(reply.runs.map(runText).join('\n'));
  const omitted = [...(reply.omitted ?? []), ...extraOmitted];
  if (omitted.length > 0)
    sections.push(omitted.map((o) => `⚠️ \`${o.name}\` was not attached: ${o.reason}`).join('\n'));
  return { body: sections.join('\n\n'), footer: replyFooterMarkdown(reply) };
}
