import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fetchMetrics, metricValue, waitUntil, type ThreadlabProcess } from '../roles/processes.js';

/** A `feedback` line of the audit trail, as the shipped tests read it (src/governance/audit/audit-record.ts). */
export interface FeedbackLine {
  kind: 'feedback';
  platform: string;
  thread: string;
  user: string;
  verdict: 'good' | 'bad';
  previous: 'good' | 'bad' | null;
  model: string;
  answer: string;
  comment: string | null;
}

/** The feedback lines of `platform` in the process's audit file (`<data dir>/audit.jsonl`, the default). */
export async function feedbackLines(dataDir: string, platform: string): Promise<FeedbackLine[]> {
  const text = await readFile(join(dataDir, 'audit.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.includes('"kind":"feedback"'))
    .map((line) => JSON.parse(line) as FeedbackLine)
    .filter((line) => line.platform === platform);
}

/** Polls the audit file until `platform` has `count` feedback lines (fails naming what it saw). */
export async function waitForFeedbackLines(dataDir: string, platform: string, count: number): Promise<FeedbackLine[]> {
  let seen: FeedbackLine[] = [];
  await waitUntil(
    async () => {
      seen = await feedbackLines(dataDir, platform);
      return seen.length >= count;
    },
    { timeoutMs: 10_000, what: `${count} ${platform} feedback lines in the audit file` },
  ).catch(() => undefined);
  return seen;
}

/** `threadlab_feedback_total{verdict, model}` of the process now (0 when absent). */
export async function feedbackCount(p: ThreadlabProcess, verdict: 'good' | 'bad', model: string): Promise<number> {
  return metricValue(await fetchMetrics(p), 'threadlab_feedback_total', { verdict, model }) ?? 0;
}

/** Both verdicts' counts, to compare before and after a click. */
export async function feedbackCounts(p: ThreadlabProcess, model: string): Promise<{ good: number; bad: number }> {
  return { good: await feedbackCount(p, 'good', model), bad: await feedbackCount(p, 'bad', model) };
}
