/**
 * What real models do (issue 37), through the product as shipped: each behaviour fake of
 * test/fakes/model-behaviours drives `threadlab chat` (the CLI process and its daemon) and `threadlab start` (the
 * web chat's HTTP API), with the real Docker sandbox under runc. The user must get the computed answer, clean, or
 * for a model that cannot succeed an honest reply that says what happened; the turn must take no more model
 * requests than the behaviour needs (the loop breaker: at most 4); and a well-behaved model's turn is unchanged.
 *
 * One daemon and one `threadlab start` serve every case, each case in its own thread, concurrently; each surface
 * has its own fake server (vLLM serving gpt-oss), so a case's requests are counted per surface. The protocol is
 * learned per process: a call that comes back as text (vLLM returns raw-source arguments its parser cannot read
 * as `<tool_call>` text; `<|python_tag|>` is text to it) moves the process to the text protocol, so the tool-calling
 * cases run first, then those, then the text-protocol case.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, type ChatRequestBody, type RecordedChatRequest } from '../../fakes/fake-openai-server.js';
import { vllm, type ServerDialect } from '../../fakes/model-servers/index.js';
import {
  emptyAnswer,
  gptOssRaw,
  llamaPythonTag,
  NATIVE_BEHAVIOURS,
  repeatedFailure,
  routeByQuestion,
  TEXT_BEHAVIOURS,
  type BehaviourFake,
  type Routed,
} from '../../fakes/model-behaviours/index.js';
import { messageText } from '../../fakes/model-behaviours/conversation.js';
import { cliEnv, runCli } from '../../integration/cli/cli-process.js';
import { removeContainersOf } from '../roles/containers.js';
import { fetchMetrics, metricValue, stopProcess, type ThreadlabProcess } from '../roles/processes.js';
import { startWebThreadlab } from './web-threadlab.js';
import type { WebClientForTests } from '../shipped/web-client.js';
import { NEVER_SHOWN, QUESTION, RESULT, sumOfSquaresModel } from './model-script.js';

const MODEL = 'openai/gpt-oss-20b';

/** The well-behaved model of the other model-server tests: its turn must be what it always was. */
const WELL_BEHAVED: BehaviourFake = {
  name: 'a well-behaved model',
  question: QUESTION,
  mustShow: RESULT,
  behaviours: [],
  maxRequests: 2,
  runs: 1,
  model: sumOfSquaresModel,
};

/** What a reply must also say, beyond `mustShow`, where the product has words of its own for it. */
const ALSO_SAYS = new Map<BehaviourFake, RegExp[]>([
  [repeatedFailure, [/same code/i, /3 times/]],
  [emptyAnswer, [/no answer text/i]],
]);
/** What a reply must never say, beyond NEVER_SHOWN. */
const NEVER_SAYS = [/The model finished without an answer/, /unknown tool/i, /not valid JSON/i, /<\|python_tag\|>/];

/**
 * vLLM serving gpt-oss with its tool parser on, until {@link BehaviourServer.refuseTools}: then it refuses `tools`
 * as vLLM does without `--enable-auto-tool-choice`, the way a server that cannot call tools answers.
 */
class BehaviourServer {
  private refusing = false;
  readonly fake: FakeOpenAiServer;

  constructor(models: readonly Routed[]) {
    const withTools = vllm({ servedModel: MODEL });
    const withoutTools = vllm({ servedModel: MODEL, autoToolChoice: false });
    const dialect: ServerDialect = {
      ...withTools,
      checks: [
        (request) => {
          for (const check of (this.refusing ? withoutTools : withTools).checks ?? []) {
            const refusal = check(request);
            if (refusal) return refusal;
          }
          return undefined;
        },
      ],
    };
    this.fake = new FakeOpenAiServer({ dialect, fallback: routeByQuestion(models) });
  }

  refuseTools(): void {
    this.refusing = true;
  }

  /** The requests the model answered (not refused) in conversations whose latest question is `question`. */
  answeredFor(question: string, all: readonly Routed[]): RecordedChatRequest[] {
    return this.fake.requests.filter((r) => !r.refusal && latestQuestion(r.body, all) === question);
  }
}

function latestQuestion(body: ChatRequestBody, all: readonly Routed[]): string | undefined {
  const asked = body.messages.filter((m) => m.role === 'user').map(messageText);
  for (let i = asked.length - 1; i >= 0; i -= 1) {
    const found = all.find((m) => asked[i]!.includes(m.question));
    if (found) return found.question;
  }
  return undefined;
}

const ALL: readonly BehaviourFake[] = [WELL_BEHAVED, ...NATIVE_BEHAVIOURS, ...TEXT_BEHAVIOURS];
const chatServer = new BehaviourServer(ALL);
const webServer = new BehaviourServer(ALL);
let dataDir = '';
let env: Record<string, string | undefined> = {};
let start: ThreadlabProcess | undefined;
let web: WebClientForTests;

function expectReply(fake: BehaviourFake, text: string): void {
  expect(text, fake.name).toContain(fake.mustShow);
  for (const also of ALSO_SAYS.get(fake) ?? []) expect(text, fake.name).toMatch(also);
  for (const never of [...NEVER_SHOWN, ...NEVER_SAYS]) expect(text, fake.name).not.toMatch(never);
}

function expectRequests(fake: BehaviourFake, server: BehaviourServer, surface: string): void {
  const answered = server.answeredFor(fake.question, ALL);
  expect(answered.length, `${fake.name} (${surface}): model requests`).toBeGreaterThan(0);
  expect(answered.length, `${fake.name} (${surface}): model requests`).toBeLessThanOrEqual(fake.maxRequests);
}

/**
 * The daemon's queue takes at most 2 turns at once from its one local user (its own limits, which
 * THREADLAB_USER_MAX_CONCURRENT does not reach): the chat cases take turns for it, 2 at a time.
 */
const CHAT_AT_ONCE = 2;
let chatsRunning = 0;
const chatWaiting: Array<() => void> = [];
async function chatTurn<T>(work: () => Promise<T>): Promise<T> {
  while (chatsRunning >= CHAT_AT_ONCE) await new Promise<void>((resolve) => chatWaiting.push(resolve));
  chatsRunning += 1;
  try {
    return await work();
  } finally {
    chatsRunning -= 1;
    chatWaiting.shift()?.();
  }
}

/** `threadlab chat --json` in the case's own thread. */
async function viaChat(fake: BehaviourFake, thread: string): Promise<void> {
  const run = await chatTurn(() =>
    runCli(['chat', '--json', '--thread', thread, fake.question], { env, cwd: dataDir }),
  );
  const reply = JSON.parse(run.stdout || '{}') as { text?: string; runs?: Array<{ code: string }> };
  expect(reply.text, `threadlab chat, ${fake.name}: ${run.stderr}${run.stdout}`).toBeDefined();
  expectReply(fake, reply.text!);
  expectRequests(fake, chatServer, 'threadlab chat');
  // Code that is only shown (an untagged output block) never runs; code the model asked for runs once.
  const runs = reply.runs ?? [];
  expect(runs.length, `${fake.name}: runs ${JSON.stringify(runs.map((r) => r.code))}`).toBe(fake.runs);
}

/** The web chat of `threadlab start`, in a new thread. */
async function viaWeb(fake: BehaviourFake): Promise<void> {
  const thread = await web.createThread();
  await web.post(thread, { text: fake.question });
  // The first bot message: a turn the loop breaker ended is posted as a notice, not an answer.
  const reply = await web.waitForAnswer(thread, 120_000);
  expectReply(fake, reply.text);
  expectRequests(fake, webServer, 'web chat');
}

async function driveBoth(fake: BehaviourFake, thread: string): Promise<void> {
  const results = await Promise.allSettled([viaChat(fake, thread), viaWeb(fake)]);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'model-behaviours-'));
  await Promise.all([chatServer.fake.start(), webServer.fake.start()]);
  const base = {
    OPENAI_MODEL: MODEL,
    THREADLAB_LLM_TEMPERATURE: '0.2',
    THREADLAB_LLM_MAX_RETRIES: '1',
    // Every case is the same local user, and they run at once.
    THREADLAB_USER_MAX_CONCURRENT: '16',
    // What is tested is the model, not the wall around the sandbox: runc starts faster than gVisor.
    THREADLAB_SANDBOX_RUNTIME: 'runc',
  };
  env = cliEnv(dataDir, { ...base, OPENAI_BASE_URL: chatServer.fake.baseUrl });
  const started = await startWebThreadlab({
    name: 'start-behaviours',
    env: cliEnv(dataDir, { ...base, OPENAI_BASE_URL: webServer.fake.baseUrl }) as Record<string, string>,
    dataDir,
  });
  start = started.process;
  web = started.web;
}, 180_000);

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env, cwd: dataDir }).catch(() => undefined);
  if (start) {
    await stopProcess(start, 'SIGTERM');
    await removeContainersOf([start.pid]).catch(() => undefined);
  }
  await Promise.all([chatServer.fake.stop(), webServer.fake.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

// The models that call tools, each in its own thread, at once.
/**
 * Replies that vLLM returns as text: a call it cannot parse (raw source as the arguments) comes back as
 * `<tool_call>` text, and `<|python_tag|>` is text to it. A call written as text moves the process to the text
 * protocol, which every later turn then uses: these run after the others, one at a time.
 */
const WRITTEN_AS_TEXT = [gptOssRaw, llamaPythonTag];
const TOOL_CALLING = [WELL_BEHAVED, ...NATIVE_BEHAVIOURS.filter((f) => !WRITTEN_AS_TEXT.includes(f))];
describe.concurrent('models that call tools', () => {
  it.each(TOOL_CALLING.map((fake, i) => [fake.name, fake, i] as const))(
    '%s',
    (_name, fake, i) => driveBoth(fake, `behaviour-${i}`),
    300_000,
  );
});

describe('models whose calls come back as text, and models without tool calls', () => {
  it.each(WRITTEN_AS_TEXT.map((fake, i) => [fake.name, fake, i] as const))(
    '%s',
    (_name, fake, i) => driveBoth(fake, `behaviour-text-${i}`),
    300_000,
  );

  it.each(TEXT_BEHAVIOURS.map((fake) => [fake.name, fake] as const))(
    '%s',
    async (_name, fake) => {
      // Had the process not learned the text protocol, the server now refuses tools, as one without tool calling.
      chatServer.refuseTools();
      webServer.refuseTools();
      await driveBoth(fake, 'behaviour-text');
    },
    300_000,
  );

  it('the web process counted each behaviour of its turns by kind', async () => {
    const metrics = await fetchMetrics(start!);
    for (const kind of new Set(ALL.flatMap((f) => f.behaviours))) {
      const expected = ALL.filter((f) => f.behaviours.includes(kind)).length;
      const counted = metricValue(metrics, 'threadlab_model_behaviour_total', { kind }) ?? 0;
      expect(counted, `threadlab_model_behaviour_total{kind="${kind}"}`).toBeGreaterThanOrEqual(expected);
    }
  });
});
