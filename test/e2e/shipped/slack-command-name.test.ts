/**
 * THREADLAB_SLACK_COMMAND renames the Slack slash command, and every text that names it follows (issue 26,
 * item 12): `threadlab start` as a child process, Socket Mode against the fake Slack, the command set to
 * `/tl`. The help answer and the refusal of a question past the daily token budget name `/tl`, never the
 * default `/interpreter`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, eventCallback, slashCommand } from '../../fakes/fake-slack/index.js';
import type { FakeReply } from '../../fakes/fake-openai-server.js';
import { withinOneUtcDay } from '../../support/utc-day.js';
import { ShippedBot } from './shipped-bot.js';

const bot = new ShippedBot({ slack: true });
const COMMAND = '/tl';

beforeAll(async () => {
  // The budget counts on the real clock: the test runs inside one UTC day.
  await withinOneUtcDay(3 * 60_000);
  await bot.start({ THREADLAB_SLACK_COMMAND: COMMAND, THREADLAB_BUDGET_USER_DAILY_TOKENS: '100' });
}, 360_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

const answer = (content: string, tokens: number): FakeReply => ({
  kind: 'message',
  content,
  usage: { prompt_tokens: tokens, completion_tokens: 1 },
});

/** Mentions the bot in a new thread and waits for its message there that contains `expected`. */
async function mention(text: string, expected: string): Promise<string> {
  const event = appMention({ text: `<@${BOT_USER_ID}> ${text}` });
  await bot.slack.socket.send('events_api', eventCallback(event));
  const found = await bot.slack.waitFor(
    () => bot.slack.state.messages.find((m) => m.thread_ts === event.ts && String(m.text).includes(expected)),
    { what: `"${expected}" in the thread of ${String(event.ts)}`, timeoutMs: 90_000 },
  );
  return String(found.text);
}

describe('THREADLAB_SLACK_COMMAND through threadlab start', () => {
  it('the help answer names the configured command', async () => {
    const url = bot.slack.responseUrl('help');
    await bot.slack.socket.send('slash_commands', slashCommand({ command: COMMAND, text: 'help', responseUrl: url }));
    const help = await bot.slack.waitFor(() => bot.slack.state.responses.find((r) => r.id === 'help'), {
      what: 'the help answer',
      timeoutMs: 30_000,
    });
    const text = JSON.stringify(help.body);
    // Block Kit text escapes `<code>` as mrkdwn requires.
    expect(text).toContain(`\`${COMMAND} run &lt;code&gt;\``);
    expect(text).toContain(`\`${COMMAND} help\``);
    expect(text).toContain(`\`${COMMAND} usage\``);
    expect(text).not.toContain('/interpreter');
  });

  it('the refusal of a spent budget names the configured command', async () => {
    bot.llm.push(answer('First answer.', 150));
    await mention('a first question', 'First answer.');
    const refused = await mention('a second question', 'so this message was not run');
    expect(refused).toContain(`\`${COMMAND} usage\``);
    expect(refused).not.toContain('/interpreter');
  });
});
