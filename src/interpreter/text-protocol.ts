import { fenceLabel, languageFromLabel, type Language } from '../domain/execution.js';
import { guessLanguage } from './code-guess.js';
import { languageOfLabel } from './tool-aliases.js';
import { findFences } from '../domain/text/fences.js';
import type { ContentPart, LlmMessage, ToolCall } from '../ports/llm-client.js';
import { RUN_CODE_TOOL } from './tools.js';
import { toolCallsInText } from './text-tool-calls.js';
import { isSqlTag, readSqlFence, type SqlFence } from './query/sql-fence.js';
import { LIST_SOURCES_TOOL, QUERY_SOURCE_TOOL } from './query/source-tools.js';

/**
 * The text protocol, for models and servers without tool calling: the model writes fenced code blocks,
 * each block tagged with a language the sandbox runs is run as a `run_code` call would be, and the results
 * come back as a user message. The loop keeps one record of the turn; this module turns it into what a
 * text-protocol request carries, and a reply into calls.
 */

/** What the system prompt adds in the text protocol; with data sources, how to query them with an sql fence. */
export function textProtocolPrompt(languages: readonly Language[], sourceNames?: readonly string[]): string {
  const tags = languages.map((l) => fenceLabel(l)).join(', ');
  const sql = sourceNames?.length
    ? [
        `To query a data source (${sourceNames.join(', ')}), write one read-only SQL query in a block tagged sql whose first line names the source, for example`,
        '```sql',
        `-- source: ${sourceNames[0]}`,
        'SELECT 1',
        '```',
        'It runs through Threadlab (never from code), and its rows come back saved as a CSV in /mnt/data and loaded in the Python session as a pandas DataFrame whose name the output gives.',
      ]
    : [];
  return [
    '',
    'How to run code here (there is no run_code tool in this conversation): write the code in a fenced block tagged with its language, for example',
    '```python',
    'import pandas as pd',
    'print(pd.read_csv("/mnt/data/data.csv").describe())',
    '```',
    `Every block tagged ${tags} in your reply runs, in order, in this thread's sandbox as described above, and the output comes back in the next message. Then fix and run again, or give your final answer.`,
    'Your final answer must contain no such block (to show code without running it, tag the block `text`). Never write the output yourself: wait for it.',
    ...sql,
  ].join('\n');
}

/** A block in a reply that names a language the sandbox runs. */
export interface CodeBlock {
  language: Language;
  code: string;
}

/** Tags of blocks that show things rather than ask for a run. */
const SHOWN = /^(text|txt|output|console|json|csv|tsv|markdown|md|yaml|yml|xml|html|plaintext|log)$/i;

/** A fenced block of a reply as the text protocol reads it: a block that runs, or one that does not. */
interface ReadBlock {
  /** Where the block starts and ends in the text, its fence lines included. */
  start: number;
  end: number;
  tag: string;
  /** Set when it runs: tagged with a language the sandbox has, and not empty. */
  block?: CodeBlock;
  /** Set when it is a query: tagged sql, in a turn that may query data sources. */
  sql?: SqlFence;
}

function readBlocks(text: string, languages: readonly Language[], sourceNames?: readonly string[]): ReadBlock[] {
  const read: ReadBlock[] = [];
  for (const span of findFences(text)) {
    const [label = '', ...info] = span.openLine.slice(span.marker.length).trim().split(/\s+/);
    if (SHOWN.test(label)) continue;
    const code = text.slice(span.bodyStart, span.closeStart).replace(/\n$/, '');
    if (!code.trim()) continue;
    if (sourceNames && isSqlTag(label)) {
      const closeEnd = text.indexOf('\n', span.closeStart);
      const end = closeEnd < 0 ? text.length : closeEnd + 1;
      read.push({ start: span.openStart, end, tag: label, sql: readSqlFence(code, sourceNames, info.join(' ')) });
      continue;
    }
    // An unlabelled block runs only when its body is plainly code: models put output and data in them too.
    const guessed = label ? undefined : guessLanguage(code, languages);
    if (!label && !guessed) continue;
    const tag = label || fenceLabel(guessed!);
    const closeEnd = text.indexOf('\n', span.closeStart);
    const end = closeEnd < 0 ? text.length : closeEnd + 1;
    const language = guessed ?? languageOfLabel(tag) ?? languageFromLabel(tag);
    read.push({
      start: span.openStart,
      end,
      tag,
      ...(language && languages.includes(language) ? { block: { language, code } } : {}),
    });
  }
  return read;
}

/**
 * The fenced blocks of `text` that run, in order: tagged with a language the sandbox has, or untagged with a body
 * that is plainly code in one (code-guess.ts). Other untagged blocks and blocks tagged `text`, `output`, `json`…
 * are shown, not run (models put output and data in them).
 * `other` counts blocks tagged with a language the sandbox lacks, so the model can be told.
 */
export function codeBlocksOf(text: string, languages: readonly Language[]): { blocks: CodeBlock[]; other: string[] } {
  return blocksOf(readBlocks(text, languages));
}

function blocksOf(read: ReadBlock[]): { blocks: CodeBlock[]; other: string[] } {
  return {
    blocks: read.flatMap((r) => (r.block ? [r.block] : [])),
    other: read.flatMap((r) => (r.block || r.sql ? [] : [r.tag])),
  };
}

/**
 * `text` without the blocks that run: what the model says around its code. The blocks are calls, shown to the
 * user as runs; left in, a stopped turn's "last note from the model" repeated them as fenced code.
 */
function withoutRunBlocks(text: string, read: ReadBlock[]): string {
  const runs = read.filter((r) => r.block || r.sql);
  if (runs.length === 0) return text;
  let out = '';
  let from = 0;
  for (const r of runs) {
    out += text.slice(from, r.start);
    from = r.end;
  }
  return (out + text.slice(from)).replace(/\n{3,}/g, '\n\n').trim();
}

/** Nine letters and digits: the one id format every server accepts (Mistral refuses any other). */
const textCallId = (round: number, index: number): string =>
  `tl${round.toString(36).padStart(3, '0')}${index.toString(36).padStart(4, '0')}`.slice(-9);

/**
 * Calls for the blocks and written tool calls of one reply, with ids the round's results refer to, and its
 * prose: the reply without them (unchanged when it has neither: it is then the answer).
 */
export function callsFromText(
  text: string,
  options: { round: number; languages: readonly Language[]; sourceNames?: readonly string[] },
): { calls: ToolCall[]; written: number; prose: string; other: string[] } {
  const tools = options.sourceNames ? [RUN_CODE_TOOL, LIST_SOURCES_TOOL, QUERY_SOURCE_TOOL] : [RUN_CODE_TOOL];
  const written = toolCallsInText(text, tools);
  const read = readBlocks(written.rest, options.languages, options.sourceNames);
  const { other } = blocksOf(read);
  const calls: ToolCall[] = [
    ...written.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    ...read.flatMap((r) => {
      if (r.sql) {
        const { source = '', sql, name } = r.sql;
        return [{ name: QUERY_SOURCE_TOOL, arguments: JSON.stringify({ source, sql, ...(name ? { name } : {}) }) }];
      }
      if (!r.block) return [];
      return [{ name: RUN_CODE_TOOL, arguments: JSON.stringify({ language: r.block.language, code: r.block.code }) }];
    }),
  ].map((c, i) => ({ id: textCallId(options.round, i), ...c }));
  return { calls, written: written.calls.length, prose: withoutRunBlocks(written.rest, read), other };
}

/**
 * The user message that carries a text-protocol round's results back to the model: the round wrote a tool
 * message per call (and a user message with its charts) into `written`, as in the native protocol.
 */
export function roundResultsMessage(calls: ToolCall[], written: LlmMessage[], other: string[]): LlmMessage {
  const results = written.flatMap((m) => {
    if (m.role !== 'tool') return [];
    const index = calls.findIndex((c) => c.id === m.toolCallId);
    return [{ index: index + 1, language: languageOfCall(calls[index]), text: m.content }];
  });
  const images = written.flatMap((m) =>
    m.role === 'user' && Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image') : [],
  );
  return resultsMessage(results, { other, images });
}

function languageOfCall(call: ToolCall | undefined): string | undefined {
  if (!call) return undefined;
  try {
    const language = (JSON.parse(call.arguments) as { language?: unknown }).language;
    return typeof language === 'string' ? language : undefined;
  } catch {
    return undefined;
  }
}

function resultsMessage(
  results: Array<{ index: number; language?: string; text: string }>,
  options: { other: string[]; images: ContentPart[] },
): LlmMessage {
  const parts = results.map((r) => `Block ${r.index}${r.language ? ` (${r.language})` : ''}:\n${r.text}`);
  if (options.other.length)
    parts.push(
      `Not run: blocks tagged ${[...new Set(options.other)].join(', ')} (this sandbox runs only the languages listed above).`,
    );
  const text = `[Threadlab] Output of the code in your last message:\n\n${parts.join('\n\n')}\n\nContinue: run more code the same way, or give your final answer without code blocks.`;
  return { role: 'user', content: options.images.length ? [{ type: 'text', text }, ...options.images] : text };
}

function fenced(call: ToolCall): string {
  try {
    const args = JSON.parse(call.arguments) as { language?: string; code?: string; source?: string; sql?: string };
    if (call.name === QUERY_SOURCE_TOOL && typeof args.sql === 'string')
      return `\`\`\`sql\n-- source: ${args.source ?? ''}\n${args.sql}\n\`\`\``;
    if (typeof args.code === 'string') return `\`\`\`${args.language ?? 'python'}\n${args.code}\n\`\`\``;
  } catch {
    // Malformed arguments are shown as written.
  }
  return `\`\`\`text\n${call.name}(${call.arguments})\n\`\`\``;
}

/**
 * The turn's messages as a text-protocol request carries them: the protocol added to the system prompt,
 * assistant tool calls written as fenced blocks, and tool results as user messages. Messages recorded in
 * the text protocol pass unchanged; native ones (a turn that switched protocol half-way) are rewritten.
 */
export function asTextProtocol(
  messages: LlmMessage[],
  languages: readonly Language[],
  sourceNames?: readonly string[],
): LlmMessage[] {
  const out: LlmMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system')
      out.push({ role: 'system', content: m.content + textProtocolPrompt(languages, sourceNames) });
    else if (m.role === 'assistant' && m.toolCalls?.length) {
      const content = [m.content?.trim(), ...m.toolCalls.map(fenced)].filter(Boolean).join('\n\n');
      out.push({ role: 'assistant', content, ...(m.reasoning ? { reasoning: m.reasoning } : {}) });
    } else if (m.role === 'tool') {
      const text = `[Threadlab] Output of your code:\n${m.content}`;
      const last = out.at(-1);
      // Results of one round go in one user message.
      if (last?.role === 'user' && typeof last.content === 'string' && last.content.startsWith('[Threadlab] Output'))
        out[out.length - 1] = { role: 'user', content: `${last.content}\n\n${m.content}` };
      else out.push({ role: 'user', content: text });
    } else out.push(m);
  }
  return out;
}
