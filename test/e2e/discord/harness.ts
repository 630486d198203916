import sharp from 'sharp';
import { createLogger } from '../../../src/logger.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { Reply } from '../../../src/domain/reply.js';
import type { InboundHandler } from '../../../src/ports/platform-adapter.js';
import { DiscordAdapter, type DiscordAdapterOptions } from '../../../adapters/discord/index.js';
import { FakeDiscord } from '../../fakes/fake-discord/index.js';

/** A token of the shape Discord issues; the fake accepts any. */
export const FAKE_TOKEN = 'MTAwMDAwMDAwMDAwMDAwMDAw.GabcDE.fake-token-for-tests-only-0000000000';

export const silentLogger = () => createLogger({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });

/** A PNG chart-like image made with sharp. */
export async function makePng(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .png()
    .toBuffer();
}

/**
 * A test-only core: records what arrives and answers each message with a scripted Reply through the
 * adapter, the way the runtime does (progress, reply, close).
 */
export class ScriptedHandler implements InboundHandler {
  readonly received: InboundMessage[] = [];
  readonly cancelled: string[] = [];
  readonly answered: Promise<void>[] = [];
  /** Resolves a held answer: set `hold` to keep the run going until the test releases it. */
  hold: Promise<void> | undefined;

  constructor(
    private readonly adapter: DiscordAdapter,
    private readonly script: (message: InboundMessage) => Reply | Promise<Reply>,
  ) {}

  async onMessage(message: InboundMessage): Promise<void> {
    this.received.push(message);
    this.answered.push(this.answer(message));
  }

  async onCancel(threadKey: string): Promise<void> {
    this.cancelled.push(threadKey);
  }

  private async answer(message: InboundMessage): Promise<void> {
    const progress = this.adapter.progress(message);
    progress.update({ type: 'started' });
    progress.update({ type: 'code', round: 1, language: 'python', code: 'print(1)' });
    if (this.hold) await this.hold;
    const reply = await this.script(message);
    await this.adapter.reply(message, reply);
    await progress.close();
  }
}

export interface Harness {
  fake: FakeDiscord;
  adapter: DiscordAdapter;
  handler: ScriptedHandler;
  stop(): Promise<void>;
}

/** Starts the fake Discord and a connected adapter answering with `script`. */
export async function startHarness(
  script: (message: InboundMessage) => Reply | Promise<Reply>,
  options: { fakeUploadLimitBytes?: number; adapter?: Partial<DiscordAdapterOptions> } = {},
): Promise<Harness> {
  const fake = new FakeDiscord(options.fakeUploadLimitBytes ? { uploadLimitBytes: options.fakeUploadLimitBytes } : {});
  await fake.start();
  const adapter = new DiscordAdapter({
    token: FAKE_TOKEN,
    applicationId: fake.applicationId,
    apiUrl: fake.apiUrl,
    maxUploadBytes: 10 * 1024 * 1024,
    logger: silentLogger(),
    progressThrottleMs: 200,
    ...options.adapter,
  });
  const handler = new ScriptedHandler(adapter, script);
  await adapter.start(handler);
  return {
    fake,
    adapter,
    handler,
    async stop() {
      await adapter.stop();
      await fake.stop();
    },
  };
}
