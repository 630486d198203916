import { describe, expect, it } from 'vitest';
import { planReply as planDiscord } from '../../../adapters/discord/plan-reply.js';
import { FILES_PER_UPLOAD } from '../../../adapters/slack/post-reply.js';
import { planReply as planSlack } from '../../../adapters/slack/reply-blocks.js';
import type { Artifact } from '../../../src/domain/execution.js';
import type { Reply } from '../../../src/domain/reply.js';
import { buildReply, type BuildReplyDeps } from '../../../src/replies/build-reply.js';
import { boundOmitted, type ReplyBounds } from '../../../src/replies/reply-bounds.js';
import { discordProfile } from '../../../adapters/discord/profile.js';
import { slackProfile } from '../../../adapters/slack/profile.js';
import { MapSandbox, RecordingRenderer, run, turn } from './helpers.js';

const MB = 1024 * 1024;

/** `count` generated files of `bytes` each; the sandbox holds their bytes only when `stored`. */
function manyFiles(count: number, bytes = 10, stored = true): { sandbox: MapSandbox; artifacts: Artifact[] } {
  const files = new Map<string, Buffer>();
  const artifacts: Artifact[] = [];
  for (let i = 0; i < count; i++) {
    const path = `out/part-${String(i).padStart(4, '0')}.csv`;
    if (stored) files.set(path, Buffer.alloc(bytes, 'x'));
    artifacts.push({ path, bytes, mime: 'text/csv', change: 'created' });
  }
  return { sandbox: new MapSandbox(files), artifacts };
}

function deps(sandbox: MapSandbox, bounds: ReplyBounds, maxFileBytes = 100 * MB): BuildReplyDeps {
  return {
    sandbox,
    renderer: new RecordingRenderer(),
    threadKey: 'slack:T1:C1:1700000000.000100',
    limits: { maxImageDimensionPx: 2048, maxOutputLines: 60, maxFileBytes, bounds },
  };
}

/** Messages Slack's postReply sends for a reply: its Block Kit messages, then one per 10 uploads. */
function slackMessages(reply: Reply): number {
  const plan = planSlack(reply);
  const uploads = reply.images.length + reply.files.length + plan.files.length;
  return plan.messages.length + Math.ceil(uploads / FILES_PER_UPLOAD);
}

describe('reply bounds: a run that writes 5,000 files', () => {
  it('attaches at most 20 on Slack, reads no more, and names the rest in one line', async () => {
    const { sandbox, artifacts } = manyFiles(5000);
    const reply = await buildReply(
      turn({ text: 'Split the table.', runs: [run({ artifacts })] }),
      deps(sandbox, slackProfile().replyBounds),
    );
    expect(reply.files).toHaveLength(20);
    expect(sandbox.reads).toHaveLength(20);
    const line = reply.text.split('\n').find((l) => l.includes('more files are in'))!;
    expect(line).toMatch(
      /^_4,980 more files are in `\/mnt\/data` but not attached \(at most 20 files per reply\): `out\/part-0020\.csv`, /,
    );
    expect(line).toMatch(/and 4,9\d\d more\. Ask me to zip them or to pick the ones you need\._$/);
    expect(line.length).toBeLessThan(800);
    const messages = slackMessages(reply);
    expect(messages).toBeLessThanOrEqual(4);
  });

  it('keeps a Discord reply to a few messages', async () => {
    const { sandbox, artifacts } = manyFiles(5000);
    const reply = await buildReply(
      turn({ text: 'Split the table.', runs: [run({ artifacts })] }),
      deps(sandbox, discordProfile.replyBounds),
    );
    const messages = await planDiscord(reply, { uploadLimitBytes: 25 * MB });
    expect(messages.length).toBeLessThanOrEqual(3);
    expect(messages.flatMap((m) => m.files)).toHaveLength(20);
    expect(messages.map((m) => m.content).join('\n')).toContain('4,980 more files are in');
  });

  it('collapses 5,000 "not attached" notes into at most 10', async () => {
    const { sandbox, artifacts } = manyFiles(5000, 2 * MB, false);
    const reply = await buildReply(
      turn({ text: 'Big files.', runs: [run({ artifacts })] }),
      deps(sandbox, { ...slackProfile().replyBounds, maxFiles: 10_000 }, MB),
    );
    expect(sandbox.reads).toHaveLength(0);
    expect(reply.omitted).toHaveLength(10);
    expect(reply.omitted![9]).toMatchObject({ name: '4,991 more files', bytes: 4991 * 2 * MB });
    expect(reply.omitted![9]!.reason).toMatch(
      /^9\.7 GB in all, not attached .*\(part-0009\.csv, .*, …\); they are in \/mnt\/data$/,
    );
    expect(planSlack(reply).messages.length).toBeLessThanOrEqual(1);
  });

  it('stops reading files back once the reply holds its byte bound', async () => {
    const { sandbox, artifacts } = manyFiles(10, 30 * MB);
    const reply = await buildReply(
      turn({ text: 'Ten big files.', runs: [run({ artifacts })] }),
      deps(sandbox, { ...slackProfile().replyBounds, maxFileBytesTotal: 100 * MB }),
    );
    expect(reply.files).toHaveLength(3);
    expect(sandbox.reads).toHaveLength(3);
    expect(reply.omitted).toHaveLength(7);
    expect(reply.omitted![0]!.reason).toBe(
      'the files of this reply reached 100 MB; it stays in /mnt/data/out/part-0003.csv for your next message',
    );
  });
});

describe('boundOmitted', () => {
  it('keeps a short list as it is', () => {
    const list = [{ name: 'a', bytes: 1, reason: 'r' }];
    expect(boundOmitted(list, 10)).toBe(list);
  });
});
