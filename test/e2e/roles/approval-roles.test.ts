/**
 * Approval in split roles, with real processes: the worker's turn waits for Run while the press reaches
 * the gateway (which alone holds the Slack connection); the request waits in the shared Redis, so the
 * gateway decides it and the worker runs the code. Before, `threadlab start --role gateway|worker` was
 * refused with THREADLAB_APPROVAL=ask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { appMention, BOT_USER_ID, buttonPress, USER_ID } from '../../fakes/fake-slack/index.js';
import { RolesCluster } from './cluster.js';
import { containersCreatedBy } from './containers.js';
import { waitUntil, type ThreadlabProcess } from './processes.js';
import { sendEvent } from './slack-thread.js';

const cluster = new RolesCluster();
const approvalEnv = { THREADLAB_APPROVAL: 'ask', THREADLAB_APPROVAL_TIMEOUT_MS: '60000' };
let gateway: ThreadlabProcess;

beforeAll(async () => {
  await cluster.start();
  [gateway] = await Promise.all([
    cluster.spawn('gateway', 'gateway', approvalEnv),
    cluster.spawn('worker-1', 'worker', approvalEnv),
  ]);
  await cluster.slack.socket.waitForConnection(30_000);
}, 120_000);

afterAll(async () => {
  await cluster.cleanup();
}, 60_000);

describe('approval with the gateway and the worker in separate processes', () => {
  it('the asker’s Run, pressed at the gateway, runs the code on the worker; another user is refused there', async () => {
    const { slack, llm } = cluster;
    llm.push(fakeRunCode('print(6 * 7)'), fakeSay('The answer is 42.'));
    const mention = appMention({ text: `<@${BOT_USER_ID}> compute six times seven` });
    const ts = String(mention.ts);
    await sendEvent(slack, mention);
    const inThread = () => slack.state.messages.filter((m) => m.thread_ts === ts && !m.deleted);
    const prompt = await waitUntil(
      () => inThread().find((m) => JSON.stringify(m.blocks).includes('threadlab_approval_run')),
      { timeoutMs: 60_000, what: 'the approval message (posted by the worker)' },
    );
    const id = /"value":"([0-9a-f-]{36})"/.exec(JSON.stringify(prompt.blocks))![1]!;
    const press = (userId: string) =>
      slack.socket.send(
        'interactive',
        buttonPress({
          actionId: 'threadlab_approval_run',
          value: id,
          messageTs: prompt.ts,
          threadTs: ts,
          responseUrl: slack.responseUrl(),
          userId,
        }),
      );

    await press('U0INTRUDER');
    const refused = await waitUntil(
      () => slack.callsTo('chat.postEphemeral').find((c) => c.args.user === 'U0INTRUDER'),
      { timeoutMs: 10_000, what: 'the private refusal from the gateway' },
    );
    expect(String(refused.args.text)).toContain('Only the person who asked');
    expect(llm.requests).toHaveLength(1); // still waiting: nothing ran

    const pressedAt = Date.now();
    await press(USER_ID);
    const settled = await waitUntil(() => (prompt.text.includes('Run approved') ? Date.now() : undefined), {
      timeoutMs: 30_000,
      what: 'the worker to settle the approval message',
      intervalMs: 10,
    });
    await waitUntil(() => inThread().some((m) => m.text.includes('The answer is 42')), {
      timeoutMs: 60_000,
      what: 'the answer',
    });
    process.stderr.write(
      `[roles approval] Run pressed at the gateway → prompt settled by the worker in ${settled - pressedAt} ms, answer in ${Date.now() - pressedAt} ms\n`,
    );
    const tools = JSON.stringify(llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
    expect(tools).toContain('42');
    expect(tools).not.toContain('did NOT run');
    expect(prompt.text).toContain(`Run approved by <@${USER_ID}>`);
    // The gateway decided the press but ran nothing.
    expect(await containersCreatedBy(gateway.pid, cluster.startedAtMs)).toEqual([]);
  });
});
