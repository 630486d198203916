import { WebClient } from '@slack/web-api';
import { beforeEach, describe, expect, it } from 'vitest';
import { postReply } from '../../../adapters/slack/post-reply.js';
import { appMention, BOT_USER_ID, CHANNEL_ID, FakeSlack } from '../../fakes/fake-slack/index.js';
import { frameReply } from '../../support/table-frames.js';
import { ScriptedHandler, testLogger } from './support.js';
import type { SlackTransport } from './transport.js';
import { useAdapterRig } from './adapter-rig.js';

// Issue 18, real tables: the Reply buildReply makes of a DataFrame display, posted by bolt's WebClient.
describe('Slack: a DataFrame as a table block', () => {
  const rig = useAdapterRig('http');
  let fake: FakeSlack;
  let handler: ScriptedHandler;
  let send: SlackTransport;
  beforeEach(() => ({ fake, handler, send } = rig));

  type TableBlock = { type: 'table'; rows: { type: string; text: string }[][]; column_settings: { align: string }[] };
  const tableIn = (threadTs: string) =>
    fake.state.messages
      .filter((m) => m.thread_ts === threadTs && !m.deleted)
      .flatMap((m) => m.blocks as { type: string }[])
      .find((b): b is TableBlock => b.type === 'table');

  it('10,000 rows: a table block of the first 99 rows and a caption, and every row as an uploaded CSV', async () => {
    handler.script = () => frameReply(10_000);
    const mention = appMention({ text: `<@${BOT_USER_ID}> show the frame` });
    await send.event(mention);
    const upload = await fake.waitFor(
      () => fake.state.uploads.find((u) => u.completed && u.filename === 'table-1.csv'),
      { what: 'the CSV upload' },
    );
    const table = tableIn(mention.ts as string)!;
    expect(table.rows).toHaveLength(100); // Slack's limit: 100 rows, the header included
    expect(table.rows[0]!.map((c) => c.text)).toEqual(['n', 'sq', 'name']);
    expect(table.rows[99]!.map((c) => c.text)).toEqual(['98', '9604', 'r98']);
    expect(table.rows.flat().every((c) => c.type === 'raw_text')).toBe(true);
    expect(table.column_settings).toEqual([{ align: 'right' }, { align: 'right' }, { align: 'left' }]);
    const caption = fake.state.messages.find((m) => JSON.stringify(m.blocks).includes('"type":"table"'))!;
    expect(JSON.stringify(caption.blocks)).toContain(
      'Table 1: 10,000 rows × 3 columns, showing the first 99 rows; every row is in `table-1.csv`.',
    );
    expect(upload.threadTs).toBe(mention.ts);
    const lines = upload.bytes!.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(10_001);
    expect(lines[10_000]).toBe('9999,99980001,r9999');
  });

  it('a small frame: the whole table, no CSV', async () => {
    handler.script = () => frameReply(12);
    const mention = appMention({ text: `<@${BOT_USER_ID}> small frame` });
    await send.event(mention);
    const table = await fake.waitFor(() => tableIn(mention.ts as string), { what: 'the table block' });
    expect(table.rows).toHaveLength(13);
    expect(table.rows[12]!.map((c) => c.text)).toEqual(['11', '121', 'r11']);
    const caption = fake.state.messages.find((m) => m.thread_ts === mention.ts && m.text.startsWith('Table 1'))!;
    expect(caption.text).toBe('Table 1: 12 rows × 3 columns.');
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.state.uploads.filter((u) => u.threadTs === mention.ts)).toEqual([]);
  });

  it('a workspace that refuses the table block gets it as monospace text, with a CSV when that cuts it', async () => {
    const client = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    const earlier = await client.chat.postMessage({ channel: CHANNEL_ID, thread_ts: '1700000000.000900', text: 'old' });
    // Replacing an earlier answer in place: its text goes by chat.update, the table is the next postMessage.
    fake.failNext('chat.postMessage', { status: 200, error: 'invalid_blocks' });
    const message = {
      thread: { platform: 'slack', workspace: 'T0TEAM', channel: CHANNEL_ID, thread: '1700000000.000900' },
    } as Parameters<typeof postReply>[1];
    const deps = { client, logger: testLogger, maxUploadBytes: 10 << 20, maxImageDimensionPx: 2048 };
    await postReply(deps, message, await frameReply(100, { namePad: 30 }), [earlier.ts!]);
    const posted = fake.state.messages.filter((m) => m.thread_ts === '1700000000.000900' && !m.deleted);
    expect(posted.some((m) => JSON.stringify(m.blocks).includes('"type":"table"'))).toBe(false);
    const mono = posted.find((m) => JSON.stringify(m.blocks).includes('Table 1:'))!;
    const text = JSON.stringify(mono.blocks);
    expect(text).toMatch(/^\[\{"type":"section","text":\{"type":"mrkdwn","text":"```\\n {0,3}n {2,}sq/);
    expect(text).toMatch(/Table 1: 100 rows × 3 columns, showing the first \d+ rows; every row is in `table-1.csv`/);
    const upload = await fake.waitFor(
      () => fake.state.uploads.find((u) => u.completed && u.threadTs === '1700000000.000900'),
      { what: 'the CSV of the monospace table' },
    );
    expect(upload.filename).toBe('table-1.csv');
    expect(upload.bytes!.toString('utf8').trimEnd().split('\r\n')).toHaveLength(101);
  });
});
