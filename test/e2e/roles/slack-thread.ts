import type { FakeSlack, FakeSlackCall } from '../../fakes/fake-slack/index.js';
import { eventCallback } from '../../fakes/fake-slack/index.js';

/** Whether a chat.postMessage was the live status (it carries the Stop button block). */
export function isProgress(call: FakeSlackCall): boolean {
  return JSON.stringify(call.args.blocks ?? []).includes('threadlab_progress');
}

/** The chat.postMessage calls into one thread, split into status messages and replies. */
export function threadPosts(
  fake: FakeSlack,
  threadTs: string,
): { progress: FakeSlackCall[]; replies: FakeSlackCall[] } {
  const posts = fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === threadTs);
  return { progress: posts.filter(isProgress), replies: posts.filter((c) => !isProgress(c)) };
}

/**
 * The first status post or status update in the thread that shows `text` (the code being run, say).
 * Updates count too: whether the code arrives in the first post or in an update is a matter of timing.
 */
export function statusShowing(fake: FakeSlack, threadTs: string, text: string): FakeSlackCall | undefined {
  const statusTs = new Set(
    fake.state.messages
      .filter((m) => m.thread_ts === threadTs && JSON.stringify(m.blocks).includes('threadlab_progress'))
      .map((m) => m.ts),
  );
  const posts = threadPosts(fake, threadTs).progress;
  const updates = fake.callsTo('chat.update').filter((c) => statusTs.has(String(c.args.ts)));
  return [...posts, ...updates].find((c) => postText(c).includes(text));
}

/** All the text a post carries (its fallback text and its blocks). */
export function postText(call: FakeSlackCall): string {
  return `${String(call.args.text ?? '')}\n${JSON.stringify(call.args.blocks ?? [])}`;
}

/**
 * The answer itself: the first section of the reply (run output, notes, errors). The code that ran is
 * quoted in a later section, so a check for output here cannot be fooled by the code's text.
 */
export function answerText(call: FakeSlackCall): string {
  const blocks = (call.args.blocks ?? []) as { type?: string; text?: { text?: string } }[];
  return blocks.find((b) => b.type === 'section')?.text?.text ?? String(call.args.text ?? '');
}

/** Delivers an event through Socket Mode to whichever process holds the connection (the gateway). */
export async function sendEvent(fake: FakeSlack, event: Record<string, unknown>): Promise<void> {
  await fake.socket.send('events_api', eventCallback(event));
}

/** A message that is only a fenced Python block (direct mode: runs as is, no model). */
export function pythonBlock(code: string): string {
  return `\`\`\`python\n${code}\n\`\`\``;
}
