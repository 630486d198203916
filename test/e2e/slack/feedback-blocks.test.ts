/**
 * The fake Slack holds feedback blocks to Slack's rules (test/fakes/fake-slack/block-checks.ts), through the real
 * @slack/web-api client: the block Threadlab puts under answers passes, and each malformed variant is refused with
 * `invalid_blocks` and a pointer to what is wrong, as Slack answers, so a shipped test would see such a block fail.
 */
import { WebClient, type WebAPICallError } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedbackBlock } from '../../../adapters/slack/feedback.js';
import { CHANNEL_ID, FakeSlack } from '../../fakes/fake-slack/index.js';

let fake: FakeSlack;
let client: WebClient;

beforeAll(async () => {
  fake = await new FakeSlack().start();
  client = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
});

afterAll(async () => {
  await fake.stop();
});

const section = { type: 'section', text: { type: 'mrkdwn', text: 'The answer is 42.' } };
type Block = { type: string; [field: string]: unknown };
const buttonsOf = () => (feedbackBlock() as unknown as { elements: Block[] }).elements[0]!;
/** The answer's feedback block with its feedback_buttons element changed by `change`. */
const withButtons = (change: (element: Block) => Block): Block[] => {
  return [section, { type: 'context_actions', elements: [change(buttonsOf())] }];
};

async function refusal(blocks: Block[]): Promise<{ error: string; errors: string[] }> {
  try {
    await client.chat.postMessage({ channel: CHANNEL_ID, thread_ts: '1700000000.000100', text: 'answer', blocks });
  } catch (err) {
    const data = (err as WebAPICallError & { data: { error: string; errors: string[] } }).data;
    return data;
  }
  throw new Error('the fake accepted the blocks');
}

describe('feedback blocks in the fake Slack', () => {
  it('accepts the feedback block Threadlab puts under answers', async () => {
    const blocks = [section, feedbackBlock()];
    const posted = await client.chat.postMessage({ channel: CHANNEL_ID, text: 'answer', blocks });
    expect(posted.ok).toBe(true);
    expect(fake.state.messages.at(-1)!.blocks).toEqual(blocks);
  });

  it.each([
    ['no negative button', (e: Block) => ({ ...e, negative_button: undefined }), '/negative_button'],
    [
      'mrkdwn button text',
      (e: Block) => ({ ...e, positive_button: { text: { type: 'mrkdwn', text: '👍' }, value: 'good' } }),
      '/positive_button/text',
    ],
    [
      'button text over 75 characters',
      (e: Block) => ({ ...e, positive_button: { text: { type: 'plain_text', text: 'y'.repeat(76) }, value: 'good' } }),
      '/positive_button/text/text',
    ],
    [
      'a value over 2,000 characters',
      (e: Block) => ({ ...e, negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'v'.repeat(2001) } }),
      '/negative_button/value',
    ],
    ['an action_id over 255 characters', (e: Block) => ({ ...e, action_id: 'a'.repeat(256) }), '/action_id'],
    ['a plain button inside', () => ({ type: 'button', text: { type: 'plain_text', text: 'x' } }), '/type'],
  ])('refuses a context_actions block with %s', async (_name, change, pointer) => {
    const before = fake.state.messages.length;
    const answer = await refusal(withButtons(change));
    expect(answer.error).toBe('invalid_blocks');
    expect(answer.errors.join('\n')).toContain(`[json-pointer:/blocks/1/elements/0${pointer}]`);
    expect(fake.state.messages).toHaveLength(before);
  });

  it('refuses an empty or overfull context_actions block, and feedback buttons outside one', async () => {
    const element = buttonsOf();
    expect((await refusal([{ type: 'context_actions', elements: [] }])).errors[0]).toContain('/blocks/0/elements');
    const six = Array.from({ length: 6 }, () => element);
    expect((await refusal([{ type: 'context_actions', elements: six }])).errors[0]).toContain('no more than 5');
    const misplaced = await refusal([{ type: 'actions', elements: [element] }]);
    expect(misplaced.errors[0]).toContain('only allowed in a context_actions block');
    await expect(
      client.chat.update({
        channel: CHANNEL_ID,
        ts: '1.1',
        text: 'x',
        blocks: [{ type: 'actions', elements: [element] } as Block],
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
  });
});
