import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { appMention, BOT_USER_ID, buttonPress, FakeSlack, USER_ID } from '../../fakes/fake-slack/index.js';
import { SlackTransport } from './transport.js';
import { startSlackBot, type SlackBotRig } from './bot-rig.js';

const TIMEOUT_MS = 6000;

describe('Approval before running, on Slack (bolt in Socket Mode, real Bot and DockerSandbox)', () => {
  let fake: FakeSlack;
  let llm: FakeOpenAiServer;
  let send: SlackTransport;

  let rig: SlackBotRig | undefined;
  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startSlackBot('approval', {
      llm,
      env: { THREADLAB_APPROVAL: 'ask', THREADLAB_APPROVAL_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    ({ fake, send } = rig);
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
    await llm?.stop();
  });

  const inThread = (ts: string) => fake.state.messages.filter((m) => m.thread_ts === ts && !m.deleted);
  const approvalIn = (ts: string) =>
    fake.waitFor(() => inThread(ts).find((m) => JSON.stringify(m.blocks).includes('threadlab_approval_run')), {
      what: 'the approval message',
      timeoutMs: 30_000,
    });
  const approvalId = (blocks: unknown): string => /"value":"([0-9a-f-]{36})"/.exec(JSON.stringify(blocks))![1]!;
  const press = (o: { ts: string; messageTs: string; id: string; action: 'run' | 'skip'; userId?: string }) =>
    send.interaction(
      buttonPress({
        actionId: `threadlab_approval_${o.action}`,
        value: o.id,
        messageTs: o.messageTs,
        threadTs: o.ts,
        responseUrl: fake.responseUrl(),
        ...(o.userId ? { userId: o.userId } : {}),
      }),
    );
  const toolResults = () => JSON.stringify(llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));

  it('waits for Run: another user is refused privately, the asker’s Run runs the code', async () => {
    llm.push(fakeRunCode('print(6 * 7)'), fakeSay('The answer is 42.'));
    const mention = appMention({ text: `<@${BOT_USER_ID}> compute six times seven` });
    const ts = mention.ts as string;
    await send.event(mention);
    const prompt = await approvalIn(ts);
    expect(JSON.stringify(prompt.blocks)).toContain('print(6 * 7)');
    const id = approvalId(prompt.blocks);

    await press({ ts, messageTs: prompt.ts, id, action: 'run', userId: 'U0INTRUDER' });
    const refused = await fake.waitFor(
      () => fake.callsTo('chat.postEphemeral').find((c) => c.args.user === 'U0INTRUDER'),
      {
        what: 'the private refusal',
        timeoutMs: 10_000,
      },
    );
    expect(String(refused.args.text)).toContain('Only the person who asked');
    expect(llm.requests).toHaveLength(1); // still waiting: nothing ran, the model was not asked again

    await press({ ts, messageTs: prompt.ts, id, action: 'run', userId: USER_ID });
    await fake.waitFor(() => inThread(ts).some((m) => m.text.includes('The answer is 42')), {
      what: 'the answer',
      timeoutMs: 60_000,
    });
    expect(toolResults()).toContain('42');
    expect(prompt.text).toContain(`Run approved by <@${USER_ID}>`);
    expect(JSON.stringify(prompt.blocks)).not.toContain('threadlab_approval_run');
  });

  it('Skip: the code does not run and the model is told', async () => {
    llm.push(fakeRunCode('open("/mnt/data/skipped.txt", "w").write("x")'), fakeSay('Fine, I did not run it.'));
    const mention = appMention({ text: `<@${BOT_USER_ID}> write a file` });
    const ts = mention.ts as string;
    await send.event(mention);
    const prompt = await approvalIn(ts);
    await press({ ts, messageTs: prompt.ts, id: approvalId(prompt.blocks), action: 'skip' });
    await fake.waitFor(() => inThread(ts).some((m) => m.text.includes('did not run it')), {
      what: 'the answer',
      timeoutMs: 30_000,
    });
    expect(toolResults()).toContain('This code did NOT run: The user chose Skip');
    expect(prompt.text).toContain('Skipped by');
  });

  it('times out: the run is skipped after THREADLAB_APPROVAL_TIMEOUT_MS and the model told', async () => {
    llm.push(fakeRunCode('print("never")'), fakeSay('Nobody approved, so nothing ran.'));
    const mention = appMention({ text: `<@${BOT_USER_ID}> print never` });
    const ts = mention.ts as string;
    const started = Date.now();
    await send.event(mention);
    const prompt = await approvalIn(ts);
    const id = approvalId(prompt.blocks);
    await fake.waitFor(() => inThread(ts).some((m) => m.text.includes('Nobody approved, so')), {
      what: 'the answer after the timeout',
      timeoutMs: 30_000,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(toolResults()).toContain('Nobody approved it within 6 s');
    expect(prompt.text).toContain('No answer within 6 s');
    // A press after the timeout finds nothing waiting, and the presser is told so.
    await press({ ts, messageTs: prompt.ts, id, action: 'run' });
    await fake.waitFor(
      () => fake.callsTo('chat.postEphemeral').find((c) => String(c.args.text).includes('no longer waiting')),
      { what: 'the late-press notice', timeoutMs: 10_000 },
    );
  });

  it('code the user wrote runs without approval', async () => {
    const mention = appMention({ text: `<@${BOT_USER_ID}> \`\`\`python\nprint(40 + 2)\n\`\`\`` });
    const ts = mention.ts as string;
    await send.event(mention);
    await fake.waitFor(() => inThread(ts).some((m) => JSON.stringify(m).includes('42')), {
      what: 'the direct run output',
      timeoutMs: 60_000,
    });
    expect(inThread(ts).some((m) => JSON.stringify(m.blocks).includes('threadlab_approval'))).toBe(false);
  });
});
