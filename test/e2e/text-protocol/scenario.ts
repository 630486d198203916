import sharp from 'sharp';
import { expect } from 'vitest';
import {
  fakeSay,
  type ChatRequestBody,
  type FakeOpenAiServer,
  type FakeReply,
  type FakeStep,
  type RecordedChatRequest,
} from '../../fakes/fake-openai-server.js';

/**
 * The text protocol's end-to-end scenarios, shared by the Slack, Discord, web chat and `threadlab start`
 * tests: what the scripted model writes (fenced blocks only, no tool calls), and what the requests it
 * received and the platforms showed must look like.
 */

/** The model name the tests configure: a model Ollama serves without tool support. */
export const MODEL = 'gemma3:4b';

/** The configuration of the in-process rigs: the text protocol set, no retries of a failed request. */
export const TEXT_PROTOCOL_ENV = { OPENAI_MODEL: MODEL, THREADLAB_LLM_TOOLS: 'text', THREADLAB_LLM_MAX_RETRIES: '0' };

/** Ollama's answer to a request with `tools` for a model without tool support (status 400). */
export const OLLAMA_REFUSAL: FakeReply = {
  kind: 'error',
  status: 400,
  body: {
    error: {
      message: `registry.ollama.ai/library/${MODEL} does not support tools`,
      type: 'api_error',
      param: null,
      code: null,
    },
  },
};

/**
 * A model without tool calling behind a server that refuses tools the way Ollama does: the fake decides from
 * each request, as the real server would. A request with `tools` gets the refusal (and consumes nothing);
 * any other gets the next reply `say` queued.
 */
export class FencedModel {
  private readonly replies: string[] = [];

  /** The fake server's step for every request (pass it as `fallback`). */
  readonly step: FakeStep = (body: ChatRequestBody) => {
    if (body.tools) return OLLAMA_REFUSAL;
    const content = this.replies.shift();
    if (content === undefined)
      return { kind: 'error', status: 500, body: { error: { message: 'FencedModel: no scripted reply left' } } };
    return { kind: 'message', content };
  };

  say(...contents: string[]): void {
    this.replies.push(...contents);
  }
}

const fence = (code: string, tag = 'python'): string => `\`\`\`${tag}\n${code}\n\`\`\``;

/** The uploaded data: the revenue total is 54, highest in April. */
export const SALES_CSV = 'month,revenue\nJan,10\nFeb,14\nMar,9\nApr,21\n';
export const QUESTION = 'What is the total revenue in sales.csv? Chart it by month.';

/** The three replies of the fix-after-error turn: a wrong column, the fix and a chart, the answer. */
export const FIX_AFTER_ERROR = {
  broken: `Let me add up the sales column.\n\n${fence(
    ['import pandas as pd', 'df = pd.read_csv("/mnt/data/sales.csv")', 'print(df["sales"].sum())'].join('\n'),
  )}`,
  fixed: [
    'The column is called revenue, not sales. The total, then a chart:',
    fence(
      [
        'total = df["revenue"].sum()',
        'best = df.loc[df["revenue"].idxmax(), "month"]',
        'print(f"total={total} best={best}")',
      ].join('\n'),
    ),
    fence(
      [
        'import matplotlib',
        'matplotlib.use("Agg")',
        'import matplotlib.pyplot as plt',
        'fig, ax = plt.subplots()',
        'ax.bar(df["month"], df["revenue"])',
        'ax.set_title("Revenue by month")',
        'plt.show()',
      ].join('\n'),
    ),
  ].join('\n\n'),
  answer: 'Total revenue is 54, highest in Apr (21). The chart shows revenue by month.',
};

/** The replies in the order the model sends them. */
export const FIX_AFTER_ERROR_REPLIES = [FIX_AFTER_ERROR.broken, FIX_AFTER_ERROR.fixed, FIX_AFTER_ERROR.answer];

/**
 * A block that runs for two minutes (far beyond the test's patience and the run limit): it prints a marker
 * that appears only in its output (never in its code, which the live status also shows), then sleeps.
 */
export const SLEEPER = `I will wait for the data first.\n\n${fence(
  [
    'import time',
    'phase = "asleep"',
    'print("zzz" + "-started", flush=True)',
    'time.sleep(120)',
    'phase = "awake"',
  ].join('\n'),
)}`;
/** What the live status shows once the sleeping block really runs in the container. */
export const SLEEPER_STARTED = 'zzz-started';

/** A later turn in the same thread: the variable the stopped block set before it slept. */
export const AFTER_STOP = {
  check: fence('print(phase.upper())'),
  answer: 'The earlier run was stopped while it slept; its variables are still here.',
  /** What the check printed when the stopped block was interrupted in its sleep. */
  output: 'ASLEEP',
};
export const AFTER_STOP_REPLIES = [AFTER_STOP.check, AFTER_STOP.answer];

/** Scripts the model's `replies`, runs the turn `ask` (which waits for its answer) and returns the turn's requests. */
export async function scriptedTurn(
  llm: FakeOpenAiServer,
  replies: string[],
  ask: () => Promise<unknown>,
): Promise<RecordedChatRequest[]> {
  const before = llm.requests.length;
  llm.push(...replies.map(fakeSay));
  await ask();
  return llm.requests.slice(before);
}

/** How a stopped turn starts (src/interpreter/outcome-text.ts). */
export const STOPPED = 'Stopped at your request.';

/** The section of the system prompt only the text protocol has. */
export const TEXT_PROTOCOL_PROMPT = 'How to run code here (there is no run_code tool in this conversation)';
/** How the message carrying a round's results starts. */
export const RESULTS_HEAD = '[Threadlab] Output of the code in your last message:';

type WireMessage = ChatRequestBody['messages'][number];

/** The text of a message as sent: the content string, or its text parts joined. */
export function wireText(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

/** The image parts of a message as sent (`image_url` data URLs). */
export function wireImages(message: WireMessage | undefined): string[] {
  const content = message?.content;
  if (!Array.isArray(content)) return [];
  return content
    .filter((p: { type?: string }) => p.type === 'image_url')
    .map((p: { image_url?: { url?: string } }) => p.image_url?.url ?? '');
}

/**
 * Checks a request in the text protocol: no `tools` (nor `tool_choice`), the protocol's section in the system
 * prompt, and no tool messages or tool calls anywhere (results travel as user messages).
 */
export function expectTextProtocolRequest(request: RecordedChatRequest): void {
  const { body } = request;
  expect(body).not.toHaveProperty('tools');
  expect(body).not.toHaveProperty('tool_choice');
  expect(body.messages[0]!.role).toBe('system');
  expect(wireText(body.messages[0])).toContain(TEXT_PROTOCOL_PROMPT);
  expect(body.messages.filter((m) => m.role === 'tool')).toEqual([]);
  expect(body.messages.filter((m) => m.tool_calls !== undefined)).toEqual([]);
}

/**
 * Checks the three requests of the fix-after-error turn: each in the text protocol; the second shows the
 * model its broken block and, as the last (user) message, the KeyError's traceback; the third carries both
 * results of the fix and the chart as an image part.
 */
export function expectFixAfterErrorRequests(requests: RecordedChatRequest[]): void {
  expect(requests).toHaveLength(3);
  requests.forEach(expectTextProtocolRequest);
  const [first, second, third] = requests.map((r) => r.body.messages);
  expect(first!.at(-1)!.role).toBe('user');
  expect(wireText(first!.at(-1))).toContain(QUESTION);
  expect(wireText(first!.at(-1))).toContain('sales.csv');

  expect(second!.at(-2)).toMatchObject({ role: 'assistant', content: FIX_AFTER_ERROR.broken });
  const traceback = second!.at(-1)!;
  expect(traceback.role).toBe('user');
  expect(typeof traceback.content).toBe('string');
  expect(wireText(traceback).startsWith(RESULTS_HEAD)).toBe(true);
  expect(wireText(traceback)).toMatch(/Block 1 \(python\):\nstatus: error[^\n]*\n/);
  expect(wireText(traceback)).toContain("KeyError: 'sales'");
  expect(wireText(traceback)).toContain('traceback:');
  expect(wireText(traceback)).not.toContain('Block 2');

  expect(third!.at(-2)).toMatchObject({ role: 'assistant', content: FIX_AFTER_ERROR.fixed });
  const results = third!.at(-1)!;
  expect(results.role).toBe('user');
  const text = wireText(results);
  expect(text.startsWith(RESULTS_HEAD)).toBe(true);
  expect(text).toMatch(/Block 1 \(python\):\nstatus: ok[\s\S]*total=54 best=Apr/);
  expect(text).toMatch(/Block 2 \(python\):\nstatus: ok[\s\S]*chart "Revenue by month"/);
  const images = wireImages(results);
  expect(images).toHaveLength(1);
  expect(images[0]).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
}

/** Checks the two requests of the turn after Stop: the check ran in the surviving interpreter and printed ASLEEP. */
export function expectAfterStopRequests(requests: RecordedChatRequest[]): void {
  expect(requests).toHaveLength(2);
  requests.forEach(expectTextProtocolRequest);
  // The stopped turn is remembered as stopped, without an answer.
  expect(JSON.stringify(requests[0]!.body.messages)).toContain('(The user stopped this turn before an answer.)');
  const results = wireText(requests[1]!.body.messages.at(-1));
  expect(results.startsWith(RESULTS_HEAD)).toBe(true);
  expect(results).toMatch(new RegExp(`Block 1 \\(python\\):\\nstatus: ok[\\s\\S]*${AFTER_STOP.output}`));
}

/**
 * Checks text a platform showed as the model's answer (or a stopped turn's notice): nothing of the protocol,
 * neither its fenced blocks nor its "[Threadlab]" messages nor the prose of rounds that ran code.
 */
export function expectNoProtocolText(text: string): void {
  expect(text).not.toContain('```');
  expect(text).not.toContain('[Threadlab]');
  expect(text).not.toContain('Block 1');
  expect(text).not.toContain('The column is called revenue');
  expect(text).not.toContain('time.sleep');
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Checks the bytes of a posted chart: a real PNG of a real size. */
export async function expectChartPng(bytes: Buffer): Promise<void> {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  const meta = await sharp(bytes).metadata();
  expect(meta.format).toBe('png');
  expect(meta.width).toBeGreaterThan(100);
  expect(meta.height).toBeGreaterThan(100);
}
