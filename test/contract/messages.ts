import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../../src/domain/messages.js';

/** A plain inbound message for queue tests; each call gets a fresh event id unless given one. */
export function testMessage(options: {
  thread: string;
  text?: string;
  id?: string;
  user?: string;
  workspace?: string;
}): InboundMessage {
  return {
    id: options.id ?? `evt-${randomUUID()}`,
    thread: { platform: 'web', workspace: options.workspace ?? 'local', channel: 'c1', thread: options.thread },
    user: { id: options.user ?? `u-${options.thread}` },
    text: options.text ?? '',
    attachments: [],
    receivedAtMs: Date.now(),
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true or `timeoutMs` passes. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}
