import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { appMention, BOT_USER_ID, FakeSlack } from '../../fakes/fake-slack/index.js';
import { frameReply } from '../../support/table-frames.js';
import { answer, ScriptedHandler, startAdapter } from './support.js';
import { SlackTransport } from './transport.js';

// Issue 18, real tables: the Reply buildReply makes of a DataFrame display, posted by bolt's WebClient.
describe('Slack: a DataFrame as a table block', () => {
  let fake: FakeSlack;
  let adapter: SlackAdapter;
  let handler: ScriptedHandler;
  let send: SlackTransport;

  beforeAll(async () => {
    fake = await new FakeSlack().start();
  });
  afterAll(async () => {
    await fake.stop();
  });
  beforeEach(async () => {
    handler = new ScriptedHandler(async () => answer('ok'));
    adapter = await startAdapter(fake, 'http', handler);
    handler.adapter = adapter;
    send = new SlackTransport(fake, adapter, 'http');
  });
  afterEach(async () => {
    await adapter.stop();
  });

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
});
