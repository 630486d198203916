import type { ChatRequestBody, FakeReply } from './fake-openai-server.js';

/**
 * A model trained on ChatGPT's code interpreter: it draws a chart and writes a CSV with `run_code`, then answers
 * the way ChatGPT does, linking the files it saved by their sandbox paths — `![chart](sandbox:/mnt/data/chart.png)`,
 * `[Download](sandbox:/mnt/data/summary.csv)` — and one it never made (`residuals.png`). Asked for the chart again
 * later, it links the earlier file without running anything.
 *
 * Public reports of this behaviour (found with the `search` tool):
 * - https://github.com/danny-avila/LibreChat/issues/2167 — an Assistants answer "You can download the CSV file
 *   using the following link: [Download the CSV file …](sandbox:/mnt/data/cvr_keys_data.csv)"; the UI's link is dead.
 * - https://github.com/open-webui/open-webui/issues/27984 — a self-hosted code interpreter: models "hallucinating
 *   `sandbox:/mnt/data/...` links" instead of files the UI can serve.
 * - https://github.com/Mantonherre/OpenWebUI-Assistant-OpenAI/issues/2 — generated files "maintain their original
 *   assistant URLs (e.g., sandbox:/mnt/data/whatever.py) rather than being converted to accessible file paths".
 * - https://github.com/QwenLM/Qwen3/issues/1614 — Qwen answers with a percent-encoded
 *   `sandbox:/mnt/data/%E7%88%B1….pptx` link that "gives me nothing"; a reply there: the file was never saved.
 * - https://github.com/lencx/ChatGPT/issues/1546 and https://github.com/chatpire/chatgpt-web-share/issues/343 —
 *   `sandbox:/mnt/data/...` links that do nothing outside ChatGPT's own web page.
 * - https://github.com/open-webui/open-webui/issues/27650 — a model links a file by its path on the sandbox's disk,
 *   which the browser resolves against the chat's own host: 404.
 */
export const LINKS_QUESTION = 'Plot 2, 4, 3 as a line chart and give me the numbers as a CSV.';
export const AGAIN_QUESTION = 'Show me that chart again.';

export const LINKS_CODE = [
  'import matplotlib',
  'matplotlib.use("Agg")',
  'import matplotlib.pyplot as plt',
  'plt.plot([1, 2, 3], [2, 4, 3])',
  'plt.title("Values")',
  'plt.savefig("chart.png")',
  'plt.close()',
  'open("summary.csv", "w").write("x,y\\n1,2\\n2,4\\n3,3\\n")',
  'print("saved chart.png and summary.csv")',
].join('\n');

export const LINKS_ANSWER =
  'Here is the chart:\n\n![chart](sandbox:/mnt/data/chart.png)\n\n' +
  'You can [Download](sandbox:/mnt/data/summary.csv) the numbers. ' +
  'The residuals are plotted in ![residuals](sandbox:/mnt/data/residuals.png).';

export const AGAIN_ANSWER = 'Here it is again: ![the chart](/mnt/data/chart.png)';

type Message = ChatRequestBody['messages'][number];
const textOf = (m: Message | undefined): string => (typeof m?.content === 'string' ? m.content : '');

/** The model, as a function of the request: the question it answers is the last user message's. */
export function sandboxLinksModel(body: ChatRequestBody): FakeReply {
  const lastUser = textOf([...body.messages].reverse().find((m) => m.role === 'user'));
  if (lastUser.includes(AGAIN_QUESTION)) return { kind: 'message', content: AGAIN_ANSWER };
  if (body.messages.at(-1)?.role === 'tool') return { kind: 'message', content: LINKS_ANSWER };
  return {
    kind: 'message',
    content: null,
    toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code: LINKS_CODE }) }],
  };
}
