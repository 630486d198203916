/**
 * The platforms' run commands with an sql block (issue 38), through `threadlab start` with the fake Slack (Socket
 * Mode), the fake Discord, the web chat, the real Docker sandbox and a real PostgreSQL: Slack's `/interpreter run`,
 * Discord's `/run` and the web chat's run (a message that is one block) each run the query on the source, without the
 * model, and answer with its rows and the CSV; each is audited as a query of who asked. A source the person may not
 * use is refused by the slash command in the same words as in a message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCallback, messageEvent, slashCommand, USER_ID } from '../../fakes/fake-slack/index.js';
import { startPostgres, writeSourcesFile, type PrivatePostgres } from '../../support/postgres-server.js';
import { WebClientForTests } from '../shipped/web-client.js';
import { ShippedBot } from '../shipped/shipped-bot.js';

const bot = new ShippedBot({ slack: true, discord: true, web: true });
let pg: PrivatePostgres;
let auditPath: string;
const COUNT = 'SELECT count(*) AS n FROM sales';

beforeAll(async () => {
  pg = await startPostgres();
  auditPath = join(bot.dataDir, 'audit.jsonl');
  const url = pg.urlFor(pg.reader);
  const sales = { name: 'sales', kind: 'postgres', url, passwordEnv: 'SALES_DB_PASSWORD' } as const;
  // The same database under a name only someone else may use: the refusal is about the name, not the data.
  const hr = { ...sales, name: 'hr', allow: { users: 'slack:U0SOMEONE' } };
  const sourcesFile = writeSourcesFile(bot.dataDir, [sales, hr]);
  await bot.start({
    THREADLAB_SOURCES_FILE: sourcesFile,
    SALES_DB_PASSWORD: pg.reader.password,
    THREADLAB_AUDIT_LOG: auditPath,
  });
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
  await pg?.stop();
}, 60_000);

/** The audit trail's query lines. */
const queryLines = () =>
  readFileSync(auditPath, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.kind === 'query');

/** Sends `/interpreter run <code>` and returns the thread (the root message's ts) it started. */
async function slackRun(code: string, tag: string): Promise<string> {
  await bot.slack.socket.send(
    'slash_commands',
    slashCommand({ text: `run ${code}`, responseUrl: bot.slack.responseUrl(tag) }),
  );
  const root = await bot.slack.waitFor(
    () => bot.slack.state.messages.find((m) => !m.thread_ts && m.text.includes('ran an SQL query') && !seen.has(m.ts)),
    { what: 'the root message of the slash command', timeoutMs: 30_000 },
  );
  seen.add(root.ts);
  return root.ts;
}
const seen = new Set<string>();

/** The first bot message in thread `ts` matching `pattern`. */
const slackReply = (ts: string, pattern: RegExp) =>
  bot.slack.waitFor(
    () => bot.slack.state.messages.find((m) => m.thread_ts === ts && m.ts !== ts && pattern.test(m.text)),
    { what: `a reply matching ${pattern} in ${ts}`, timeoutMs: 90_000 },
  );

describe('Slack /interpreter run with an sql block', () => {
  it('runs the query without the model and answers with the row count and the CSV; audited as the user', async () => {
    const requestsBefore = bot.llm.requests.length;
    const ts = await slackRun(`\`\`\`sql\n-- source: sales\n${COUNT}\n\`\`\``, 'count');
    const reply = await slackReply(ts, /20000/);
    expect(reply.text).toContain('20000');
    await bot.slack.waitFor(
      () => bot.slack.state.uploads.find((u) => u.completed && u.threadTs === ts && u.filename === 'query_1_sales.csv'),
      { what: 'the CSV uploaded to the thread', timeoutMs: 30_000 },
    );
    expect(bot.llm.requests.length).toBe(requestsBefore);
    expect(queryLines()).toContainEqual(
      expect.objectContaining({
        platform: 'slack',
        user: USER_ID,
        source: 'sales',
        sql: COUNT,
        outcome: 'ok',
        rows: 1,
      }),
    );
  }, 120_000);

  it('refuses a source the person may not use in the same words as a message that is the block', async () => {
    const block = '```sql\n-- source: hr\nSELECT 1 AS one\n```';
    const ts = await slackRun(block, 'hr');
    const refused = await slackReply(ts, /hr/);
    const asMessage = nextMessageTs();
    await bot.slack.socket.send(
      'events_api',
      eventCallback(
        messageEvent({ text: block, thread_ts: asMessage, ts: asMessage, channel_type: 'im', channel: 'D0RUNCMD1' }),
      ),
    );
    const inMessage = await slackReply(asMessage, /hr/);
    expect(refused.text).toContain('Source "hr" is not open to you here');
    expect(refused.text).toContain('Sources you may use here: "sales".');
    expect(refused.text).toBe(inMessage.text);
    const refusals = queryLines().filter((l) => l.source === 'hr');
    expect(refusals).toEqual([
      expect.objectContaining({ platform: 'slack', user: USER_ID, outcome: 'not_allowed' }),
      expect.objectContaining({ platform: 'slack', user: USER_ID, outcome: 'not_allowed' }),
    ]);
  }, 120_000);
});

let tsSeq = 0;
const nextMessageTs = () => `1790000000.${String(++tsSeq).padStart(6, '0')}`;

describe('Discord /run with an sql block', () => {
  it('runs the query and answers the interaction with the row count; audited as the user', async () => {
    const interaction = bot.discord.slashCommand({
      name: 'run',
      options: [{ name: 'code', type: 3, value: `\`\`\`sql ${COUNT}\`\`\`` }],
    });
    // Two sources exist, but this person may use one: a block naming none is for it.
    await bot.discord.waitForRequest(
      (r) =>
        r.path.startsWith(`/webhooks/${bot.discord.applicationId}/${String(interaction.token)}`) &&
        /20000/.test(JSON.stringify(r.json)),
      90_000,
    );
    expect(queryLines()).toContainEqual(
      expect.objectContaining({ platform: 'discord', source: 'sales', sql: COUNT, outcome: 'ok', rows: 1 }),
    );
    // The language option sql: bare SQL in the code option.
    const chosen = bot.discord.slashCommand({
      name: 'run',
      options: [
        { name: 'code', type: 3, value: 'SELECT count(*) AS m FROM sales' },
        { name: 'language', type: 3, value: 'sql' },
      ],
    });
    await bot.discord.waitForRequest(
      (r) =>
        r.path.startsWith(`/webhooks/${bot.discord.applicationId}/${String(chosen.token)}`) &&
        /20000/.test(JSON.stringify(r.json)),
      90_000,
    );
  }, 120_000);
});

describe("the web chat's run (a message that is one block)", () => {
  it('runs an sql block and answers with the row count and the CSV', async () => {
    const web = new WebClientForTests(() => bot.webUrl);
    const thread = await web.createThread();
    await web.post(thread, { text: `\`\`\`sql\n-- source: sales\n${COUNT}\n\`\`\`` });
    const reply = await web.waitForAnswer(thread, 90_000);
    expect(reply.text).toContain('20000');
    expect(reply.files?.map((f) => f.name)).toContain('query_1_sales.csv');
  }, 120_000);
});
