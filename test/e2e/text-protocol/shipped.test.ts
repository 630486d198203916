/**
 * The text protocol through the product as shipped: one `threadlab start` child process with Slack (Socket
 * Mode), Discord and the web chat configured and THREADLAB_LLM_TOOLS left at its default, `auto`, against a
 * model server that refuses tools the way Ollama does for a model without tool support. The first request
 * offers tools and is refused; the process redoes that round in the text protocol and keeps to it for the
 * endpoint and model. On each platform the fix-after-error question is answered through fenced blocks.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, type RecordedChatRequest } from '../../fakes/fake-openai-server.js';
import { eventCallback } from '../../fakes/fake-slack/index.js';
import { fetchMetrics, jobsFinished, metricValue } from '../roles/processes.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests } from '../shipped/web-client.js';
import { launchChromium, watchPageErrors } from '../web/browser.js';
import { expectFixAfterErrorRequests, FencedModel, FIX_AFTER_ERROR_REPLIES, MODEL } from './scenario.js';
import { discordFixAfterErrorTurn, slackFixAfterErrorTurn, webFixAfterErrorTurn } from './surfaces.js';

/** `threadlab start` whose model server is an Ollama-like fake that decides from each request. */
class FencedModelBot extends ShippedBot {
  readonly model = new FencedModel();

  override async startFakes(): Promise<void> {
    await super.startFakes();
    await this.llm.stop();
    this.llm = new FakeOpenAiServer({ fallback: this.model.step });
    await this.llm.start();
  }
}

const SWITCH_LOG = 'model uses the text protocol (fenced code blocks) from now on';
const bot = new FencedModelBot({ slack: true, discord: true, web: true });
let browser: Browser;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  // The switch is logged at info; the model name is one Ollama serves without tools.
  await bot.start({ OPENAI_MODEL: MODEL, THREADLAB_LOG_LEVEL: 'info' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  pageErrors = watchPageErrors(page);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await bot.cleanup();
}, 60_000);

/**
 * The text-protocol requests of a turn. Only the process's very first request ever offered tools (Ollama
 * refused it); when it belongs to this turn it is left out, the rest must be the text protocol.
 */
function textRequests(turn: RecordedChatRequest[]): RecordedChatRequest[] {
  const first = bot.llm.requests[0]!;
  expect(bot.llm.requests.filter((r) => r.body.tools)).toEqual([first]);
  return turn.filter((r) => r !== first);
}

describe('auto against a server that refuses tools, through threadlab start', () => {
  it('Slack: the fix-after-error question is answered through fenced blocks', async () => {
    bot.model.say(...FIX_AFTER_ERROR_REPLIES);
    const slack = {
      fake: bot.slack,
      send: (event: Record<string, unknown>) =>
        bot.slack.socket.send('events_api', eventCallback(event)).then(() => {}),
    };
    expectFixAfterErrorRequests(textRequests(await slackFixAfterErrorTurn(slack, bot.llm, 'FTPSHIPPED1')));
  });

  it('Discord: the fix-after-error question is answered through fenced blocks', async () => {
    bot.model.say(...FIX_AFTER_ERROR_REPLIES);
    expectFixAfterErrorRequests(textRequests(await discordFixAfterErrorTurn(bot.discord, bot.llm)));
  });

  it('web chat: the fix-after-error question is answered through fenced blocks', async () => {
    bot.model.say(...FIX_AFTER_ERROR_REPLIES);
    const client = new WebClientForTests(() => bot.webUrl);
    const web = { url: bot.webUrl, messagesOf: (id: string) => client.messages(id) };
    expectFixAfterErrorRequests(textRequests(await webFixAfterErrorTurn(page, web, bot.llm)));
    expect(pageErrors).toEqual([]);
  });

  it('the process switched once, on the refusal, and every job succeeded', async () => {
    const first = bot.llm.requests[0]!.body;
    expect(first.tools?.map((t) => t.function.name)).toEqual(['run_code']);
    expect(first.model).toBe(MODEL);
    const switches = bot.process
      .output()
      .split('\n')
      .filter((line) => line.includes(SWITCH_LOG));
    expect(switches).toHaveLength(1);
    expect(switches[0]).toContain('server refuses tools');
    expect(await jobsFinished(bot.process, 3)).toBe(3);
    const metrics = await fetchMetrics(bot.process);
    expect(metricValue(metrics, 'threadlab_errors_total') ?? 0).toBe(0);
    expect(bot.process.isRunning()).toBe(true);
  });
});
