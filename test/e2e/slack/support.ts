import sharp from 'sharp';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { ProgressEvent } from '../../../src/domain/progress-event.js';
import type { Reply } from '../../../src/domain/reply.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { createLogger } from '../../../src/logger.js';
import type { InboundHandler } from '../../../src/ports/platform-adapter.js';
import { SlackAdapter, type SlackAdapterOptions } from '../../../adapters/slack/index.js';
import type { FakeSlack } from '../../fakes/fake-slack/index.js';

export const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5'.replace(/[yz]/g, 'a');

export type Mode = 'http' | 'socket';

/** A silent logger unless THREADLAB_TEST_LOG is set. */
export const testLogger = createLogger({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });

/**
 * The real adapter (bolt + web-api) pointed at the fake, with fast retries and a short status interval;
 * `overrides` replaces any option (a logger to read, another interval).
 */
export async function startAdapter(
  fake: FakeSlack,
  mode: Mode,
  handler: InboundHandler,
  overrides: Partial<SlackAdapterOptions> = {},
): Promise<SlackAdapter> {
  const adapter = new SlackAdapter({
    botToken: fake.botToken,
    mode,
    appToken: fake.appToken,
    signingSecret: SIGNING_SECRET,
    port: 0,
    host: '127.0.0.1',
    apiUrl: fake.apiUrl,
    logger: testLogger,
    retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 50 },
    progressIntervalMs: 150,
    ...overrides,
  });
  await adapter.start(handler);
  if (mode === 'socket') await fake.socket.waitForConnection();
  return adapter;
}

export type Script = (message: InboundMessage, tools: ScriptTools) => Promise<Reply | undefined>;

export interface ScriptTools {
  adapter: SlackAdapter;
  progress: (event: ProgressEvent) => void;
  /** Resolves when Stop was pressed for this thread. */
  cancelled: Promise<void>;
}

/**
 * A test-only InboundHandler: records what arrives and answers each message the way the core would
 * (progress, then reply, then close), with a scripted Reply.
 */
export class ScriptedHandler implements InboundHandler {
  readonly messages: InboundMessage[] = [];
  readonly cancels: string[] = [];
  readonly errors: unknown[] = [];
  adapter: SlackAdapter | undefined;
  /** How long `onMessage` takes to accept a message (a slow queue). */
  acceptDelayMs = 0;
  private readonly cancelWaiters = new Map<string, () => void>();

  constructor(public script: Script) {}

  async onMessage(message: InboundMessage): Promise<void> {
    this.messages.push(message);
    if (this.acceptDelayMs > 0) await new Promise((r) => setTimeout(r, this.acceptDelayMs));
    void this.answer(message);
  }

  async onCancel(key: string): Promise<void> {
    this.cancels.push(key);
    this.cancelWaiters.get(key)?.();
  }

  private async answer(message: InboundMessage): Promise<void> {
    const adapter = this.adapter!;
    const key = threadKey(message.thread);
    const cancelled = new Promise<void>((resolve) => this.cancelWaiters.set(key, resolve));
    const progress = adapter.progress(message);
    try {
      progress.update({ type: 'started' });
      const reply = await this.script(message, { adapter, progress: (e) => progress.update(e), cancelled });
      if (reply) await adapter.reply(message, reply);
    } catch (err) {
      this.errors.push(err);
    } finally {
      await progress.close();
    }
  }
}

/** A real PNG chart-like image made with sharp. */
export async function makePng(): Promise<Buffer> {
  return sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .png()
    .toBuffer();
}

export function answer(text: string, extra: Partial<Reply> = {}): Reply {
  return { kind: 'answer', text, runs: [], images: [], files: [], ...extra };
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
