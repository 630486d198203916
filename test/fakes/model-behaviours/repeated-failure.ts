import type { ChatRequestBody, FakeReply } from '../fake-openai-server.js';
import type { BehaviourFake } from './conversation.js';

/**
 * A model that sends the identical failing code every round: it reads a column that does not exist, gets
 * `KeyError: 'revenue'`, and calls the same code again, whatever the tool result or a note says. Only a loop
 * breaker ends the turn; without one it runs to the round limit.
 *
 * Reports this follows (found with the `search` tool):
 * - https://github.com/anomalyco/opencode/issues/28596 — a model repeats a tool call "with exact arguments
 *   indefinitely"; opencode's answer is its `doom_loop` permission, which halts identical calls repeated 3+ times.
 * - https://github.com/NousResearch/hermes-agent/issues/67829 — one run emitted a byte-identical failing
 *   `tool_call` 85 times in a row, stopping only at `max_turns`; a warning on every failure "changed nothing".
 * - https://github.com/continuedev/continue/issues/12702 and https://github.com/ymichael/open-codex/issues/51 —
 *   agents that repeat identical tool calls "instead of bounding the loop".
 * - https://github.com/spring-projects/spring-ai-examples/issues/71 — a tool that keeps failing gets retried until
 *   the context overflows.
 * - https://github.com/itayinbarr/little-coder/issues/81 — a harness's "You just made the exact same tool call"
 *   message, and why it must not fire when the environment changed between calls.
 * Every other round the code gains a comment line, a trailing comment, a blank line and trailing spaces: near-identical
 * repeats count as the same.
 */
export const LOOP_QUESTION = 'What is the total revenue in the sales table? Use pandas.';
const TABLE = 'df = pd.DataFrame({"month": ["Jan", "Feb", "Mar"], "sales": [120, 95, 143]})';
const CODES = [
  `import pandas as pd\n${TABLE}\nprint(df["revenue"].sum())`,
  `import pandas as pd\n\n# total revenue\n${TABLE}  \nprint(df["revenue"].sum())  # the answer`,
];
/** What the reply must name: the error every run ended with. */
export const LOOP_ERROR = "KeyError: 'revenue'";

export const repeatedFailure: BehaviourFake = {
  name: 'the same failing code every round',
  question: LOOP_QUESTION,
  mustShow: LOOP_ERROR,
  behaviours: ['repeated_failure', 'loop_stopped'],
  maxRequests: 4,
  runs: 3,
  model: (body: ChatRequestBody): FakeReply => {
    const round = body.messages.filter((m) => m.role === 'assistant').length;
    return {
      kind: 'message',
      content: round === 0 ? 'Let me sum the revenue column.' : 'Let me try that again.',
      toolCalls: [
        { name: 'run_code', arguments: JSON.stringify({ language: 'python', code: CODES[round % CODES.length] }) },
      ],
    };
  },
};
