import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appMention,
  BOT_USER_ID,
  CHANNEL_ID,
  FakeSlack,
  messageEvent,
  slashCommand,
} from '../../fakes/fake-slack/index.js';
import { validateNotebook } from '../../support/nbformat.js';
import { SlackTransport } from './transport.js';
import { startSlackBot, type SlackBotRig } from './bot-rig.js';
const CODE = 'import numpy as np\nprint(np.arange(4).sum())';

describe('Slack: /interpreter export and `export` in a thread (real bolt client, Bot and DockerSandbox)', () => {
  let fake: FakeSlack;
  let send: SlackTransport;

  let rig: SlackBotRig | undefined;
  beforeAll(async () => {
    rig = await startSlackBot('export');
    ({ fake, send } = rig);
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
  });

  const uploadsIn = (ts: string, name: string) =>
    fake.state.uploads.filter((u) => u.completed && u.threadTs === ts && u.filename === name);

  it('answers with thread.ipynb and requirements.txt in the thread the link names, and for `export` typed in it', async () => {
    const mention = appMention({ text: `<@${BOT_USER_ID}> \`\`\`python\n${CODE}\n\`\`\`` });
    const root = mention.ts as string;
    await send.event(mention);
    await fake.waitFor(() => fake.state.messages.some((m) => m.thread_ts === root && m.text.includes('6')), {
      what: 'the run answer',
      timeoutMs: 120_000,
    });

    const noLink = await send.command(slashCommand({ text: 'export', responseUrl: fake.responseUrl() }));
    expect(noLink.body).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.stringify(noLink.body)).toContain('export <link to the thread>');
    const elsewhere = `https://threadlab.slack.com/archives/C0OTHER99/p${root.replace('.', '')}`;
    const other = await send.command(slashCommand({ text: `export <${elsewhere}>`, responseUrl: fake.responseUrl() }));
    expect(JSON.stringify(other.body)).toContain('another channel');

    const link = `https://threadlab.slack.com/archives/${CHANNEL_ID}/p${root.replace('.', '')}`;
    const ack = await send.command(slashCommand({ text: `export <${link}>`, responseUrl: fake.responseUrl() }));
    expect(JSON.stringify(ack.body ?? '')).not.toContain('ephemeral');
    const notebook = await fake.waitFor(() => uploadsIn(root, 'thread.ipynb')[0], {
      what: 'the notebook upload',
      timeoutMs: 60_000,
    });
    const requirements = await fake.waitFor(() => uploadsIn(root, 'requirements.txt')[0], { what: 'requirements' });
    expect(notebook.channelId).toBe(CHANNEL_ID);
    await validateNotebook(notebook.bytes!);
    const cells = JSON.parse(notebook.bytes!.toString()).cells as {
      cell_type: string;
      source: string;
      outputs?: unknown[];
    }[];
    expect(cells.filter((c) => c.cell_type === 'code').map((c) => [c.source, c.outputs])).toEqual([
      [CODE, [{ output_type: 'stream', name: 'stdout', text: '6\n' }]],
    ]);
    expect(requirements.bytes!.toString()).toMatch(/^numpy==\d+\.\d+/m);

    await send.event(messageEvent({ text: 'export', thread_ts: root }));
    await fake.waitFor(() => uploadsIn(root, 'thread.ipynb')[1], { what: 'the second notebook', timeoutMs: 60_000 });
  });
});
