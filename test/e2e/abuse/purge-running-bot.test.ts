/**
 * Issue 26, item 6, through `threadlab start`: a Discord thread's runs are in the running bot's memory
 * (no REDIS_URL); after `threadlab purge --thread` (a process of its own) the bot's export of that thread
 * has none of them, and the audit trail names none of its files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../integration/cli/cli-process.js';
import { ShippedBot } from '../shipped/shipped-bot.js';

let bot: ShippedBot | undefined;
afterEach(async () => {
  await bot?.cleanup();
  bot = undefined;
}, 60_000);

const SECRET_FILE = 'merger-targets.csv';

it("after threadlab purge --thread, the running bot's export of the thread is empty and the trail names no file of it", async () => {
  bot = new ShippedBot({ discord: true });
  await bot.start();
  const { discord } = bot;
  const code = `open("${SECRET_FILE}", "w").write("x\\n")\nprint("written")`;
  const question = discord.userMessage({
    channelId: discord.textChannelId,
    content: `<@${discord.bot.id}> \`\`\`python\n${code}\n\`\`\``,
    mentionBot: true,
  });
  const thread = String(question.id);
  const inThread = (text: string) =>
    discord.waitForRequest(
      (r) => r.path === `/channels/${thread}/messages` && String(r.json?.content).includes(text),
      60_000,
    );
  await inThread('written');
  const trail = () => readFileSync(join(bot!.dataDir, 'audit.jsonl'), 'utf8');
  const runLine = trail()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; thread: string })
    .find((l) => l.kind === 'run');
  expect(trail()).toContain(SECRET_FILE);

  const purged = await runCli(['purge', '--thread', runLine!.thread], { env: cliEnv(bot.dataDir) });
  expect(purged.code, purged.stdout + purged.stderr).toBe(0);

  discord.userMessage({ channelId: thread, content: 'export' });
  await inThread('Nothing to export yet');
  expect(trail()).not.toContain(SECRET_FILE);
}, 240_000);
