/**
 * The Block Kit rules the fake enforces on `blocks` of chat.postMessage, chat.postEphemeral and chat.update, for the
 * blocks whose shape Threadlab must get right to have them shown at all: `context_actions` and its
 * `feedback_buttons`. Slack's references:
 * - docs.slack.dev/reference/block-kit/blocks/context-actions-block: `elements` required, feedback buttons and icon
 *   buttons only, at most 5; `block_id` at most 255 characters.
 * - docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element: `positive_button` and
 *   `negative_button` required, each with `text` (plain_text only, at most 75 characters) and `value` (at most 2,000);
 *   `accessibility_label` at most 75; `action_id` at most 255; "must be used inside the context actions block".
 * - the types: ContextActionsBlock and ContextActionsBlockElement in node_modules/@slack/types/dist/block-kit/blocks.d.ts,
 *   FeedbackButtons in .../block-elements.d.ts.
 * A refusal is answered as Slack answers one (`ok: false`, `error: "invalid_blocks"`, an `errors` list and the same
 * lines under `response_metadata.messages`), as quoted in slackapi/java-slack-sdk issue 1017.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const tooLong = (v: unknown, max: number) => typeof v === 'string' && [...v].length > max;

function checkButton(button: unknown, at: string, out: string[]): void {
  if (!isObject(button)) return void out.push(`missing required field: ${at.split('/').pop()} [json-pointer:${at}]`);
  const text = button.text;
  if (!isObject(text) || text.type !== 'plain_text' || typeof text.text !== 'string' || text.text === '')
    out.push(`must be a plain_text text object [json-pointer:${at}/text]`);
  else if (tooLong(text.text, 75)) out.push(`must be less than 76 characters [json-pointer:${at}/text/text]`);
  if (typeof button.value !== 'string' || button.value === '')
    out.push(`missing required field: value [json-pointer:${at}/value]`);
  else if (tooLong(button.value, 2000)) out.push(`must be less than 2001 characters [json-pointer:${at}/value]`);
  if (tooLong(button.accessibility_label, 75))
    out.push(`must be less than 76 characters [json-pointer:${at}/accessibility_label]`);
}

function checkContextActions(block: Json, at: string, out: string[]): void {
  if (tooLong(block.block_id, 255)) out.push(`must be less than 256 characters [json-pointer:${at}/block_id]`);
  const elements = block.elements;
  if (!Array.isArray(elements) || elements.length === 0)
    return void out.push(`must provide at least 1 items [json-pointer:${at}/elements]`);
  if (elements.length > 5) out.push(`must provide no more than 5 items [json-pointer:${at}/elements]`);
  elements.forEach((element, i) => {
    const here = `${at}/elements/${i}`;
    if (!isObject(element) || (element.type !== 'feedback_buttons' && element.type !== 'icon_button'))
      return void out.push(`must be one of feedback_buttons, icon_button [json-pointer:${here}/type]`);
    if (element.type !== 'feedback_buttons') return;
    if (tooLong(element.action_id, 255)) out.push(`must be less than 256 characters [json-pointer:${here}/action_id]`);
    checkButton(element.positive_button, `${here}/positive_button`, out);
    checkButton(element.negative_button, `${here}/negative_button`, out);
  });
}

/** A `feedback_buttons` element anywhere but directly in a `context_actions` block (an `actions` block, say). */
function misplacedFeedback(block: Json, at: string, out: string[]): void {
  const elements = Array.isArray(block.elements) ? block.elements : [];
  elements.forEach((element, i) => {
    if (isObject(element) && element.type === 'feedback_buttons')
      out.push(`feedback_buttons is only allowed in a context_actions block [json-pointer:${at}/elements/${i}]`);
  });
  if (isObject(block.accessory) && block.accessory.type === 'feedback_buttons')
    out.push(`feedback_buttons is only allowed in a context_actions block [json-pointer:${at}/accessory]`);
}

/**
 * The errors Slack would give `blocks` (already parsed from the form's JSON), or undefined when the rules checked
 * here hold. Other block types pass unchecked.
 */
export function blockErrors(blocks: unknown): string[] | undefined {
  if (!Array.isArray(blocks)) return undefined;
  const out: string[] = [];
  blocks.forEach((block, i) => {
    if (!isObject(block)) return;
    const at = `/blocks/${i}`;
    if (block.type === 'context_actions') checkContextActions(block, at, out);
    else misplacedFeedback(block, at, out);
  });
  return out.length > 0 ? out : undefined;
}

/** Slack's answer to invalid blocks, or undefined when the blocks pass. */
export function invalidBlocksAnswer(blocks: unknown): Record<string, unknown> | undefined {
  const errors = blockErrors(blocks);
  if (!errors) return undefined;
  return {
    ok: false,
    error: 'invalid_blocks',
    errors,
    response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
  };
}
