import { fenceLabel } from '../../src/domain/execution.js';
import type { Reply, RunRecord } from '../../src/domain/reply.js';
import { formatDuration } from '../../src/replies/format.js';

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

/**
 * The markdown of a reply for Discord: the text (or, when there is none, the runs with their output),
 * notes on files that could not be attached, and a small footer line.
 */
export function replyMarkdown(reply: Reply, extraOmitted: { name: string; reason: string }[] = []): string {
  const sections: string[] = [];
  const text = reply.text.trim();
  if (text) sections.push(reply.kind === 'error' && !text.startsWith('⚠') ? `⚠️ ${text}` : text);
  else if (reply.runs.length > 0) sections.push(reply.runs.map(runText).join('\n'));
  const omitted = [...(reply.omitted ?? []), ...extraOmitted];
  if (omitted.length > 0)
    sections.push(omitted.map((o) => `⚠️ \`${o.name}\` was not attached: ${o.reason}`).join('\n'));
  if (reply.footer) {
    const f = reply.footer;
    const bits = [`⏱ ${formatDuration(f.durationMs)}`, `${f.runs} run${f.runs === 1 ? '' : 's'}`];
    if (f.model) bits.push(f.model);
    sections.push(`-# ${bits.join(' · ')}`);
  }
  return sections.join('\n\n');
}
