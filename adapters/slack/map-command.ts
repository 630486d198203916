import { LANGUAGES, languageFromLabel } from '../../src/domain/execution.js';
import type { InboundCommand, InboundMessage } from '../../src/domain/messages.js';
import { sqlRunOf } from '../../src/domain/sql-run.js';
import { decodeSlackText, escapeMrkdwn } from './slack-text.js';

/** The fields of a slash-command request Threadlab reads. */
export interface SlackCommandBody {
  command: string;
  text?: string;
  team_id: string;
  channel_id: string;
  user_id: string;
  user_name?: string;
  response_url?: string;
  trigger_id?: string;
}

/** What the text after the command asks for: a command, a free question, or a mistake to explain. */
export type ParsedCommandText =
  | { kind: 'command'; command: InboundCommand }
  | { kind: 'question'; text: string }
  | { kind: 'invalid'; error: string };

/**
 * Parses `/interpreter <text>`: `run <code>` (optionally fenced with ```python, ```bash, ```r or ```js; a ```sql block
 * or a first line `-- source: NAME` is a query on a data source), `reset`,
 * `files`, `help` (also an empty text), `stop`, `export [link]` and `schedule <when> <question>`; anything else is a
 * question for the model.
 */
export function parseCommandText(raw: string | undefined): ParsedCommandText {
  const text = decodeSlackText(raw ?? '').trim();
  const [word = '', ...rest] = text.split(/\s+/);
  const name = word.toLowerCase();
  if (name === '' || name === 'help') return { kind: 'command', command: { name: 'help' } };
  if (name === 'reset' || name === 'files' || name === 'stop') return { kind: 'command', command: { name } };
  if (name === 'usage') return { kind: 'command', command: { name } };
  // The core parses what follows (`every day 09:00 …`, `list`, `cancel 2`).
  if (name === 'schedule') return { kind: 'command', command: { name, text: text.slice(word.length).trim() } };
  // The link after `export` names the thread; the listener reads it (export-command.ts).
  if (name === 'export') return { kind: 'command', command: { name } };
  if (name !== 'run') return { kind: 'question', text };
  if (rest.length === 0)
    return { kind: 'invalid', error: 'Nothing to run. Usage: `run print(1 + 1)` or `run ```python …````' };
  const body = text.slice(word.length).trim();
  // An sql block (or a first line `-- source: NAME`) is a query on a data source, as a message that is one.
  const query = sqlRunOf(body);
  if (query) return { kind: 'command', command: { name: 'query', ...query } };
  // A language tag counts only when a newline follows it: ```print(1)``` is code, not a language.
  const fenced = /^```(?:([\w+-]+)[ \t]*\n|\n?)([\s\S]*?)\n?```\s*$/.exec(body);
  const inline = /^`([^`]+)`$/.exec(body);
  let lang = (fenced?.[1] ?? '').toLowerCase();
  let code = fenced ? fenced[2]! : inline ? inline[1]! : body;
  // One line typed in the command box: ```python print(1)``` — a known language word leads the code.
  const sameLine = fenced && !fenced[1] ? /^(\w+)[ \t]+(\S[\s\S]*)$/.exec(code) : null;
  if (sameLine && languageFromLabel(sameLine[1]!)) {
    lang = sameLine[1]!.toLowerCase();
    code = sameLine[2]!;
  }
  const language = languageFromLabel(lang);
  if (!language) return { kind: 'invalid', error: `Unknown language \`${lang}\`: use ${LANGUAGES.join(', ')}.` };
  if (code.trim() === '') return { kind: 'invalid', error: 'Nothing to run: the code block is empty.' };
  return { kind: 'command', command: { name: 'run', language, code } };
}

export interface MapCommandInput {
  body: SlackCommandBody;
  parsed: Exclude<ParsedCommandText, { kind: 'invalid' }>;
  /** The ts of the root message posted for this command; its thread is the session. */
  rootTs: string;
  nowMs: number;
}

/** Maps a slash command to an InboundMessage whose thread is the root message posted for it. */
export function mapSlashCommand(input: MapCommandInput): InboundMessage {
  const { body, parsed, rootTs } = input;
  return {
    id: `slack:${body.team_id}:${body.channel_id}:${rootTs}`,
    thread: { platform: 'slack', workspace: body.team_id, channel: body.channel_id, thread: rootTs },
    user: { id: body.user_id, ...(body.user_name ? { name: body.user_name } : {}) },
    text: parsed.kind === 'question' ? parsed.text : '',
    attachments: [],
    receivedAtMs: input.nowMs,
    replyContext: { ts: rootTs, responseUrl: body.response_url ?? null, slashCommand: body.command },
    ...(parsed.kind === 'command' ? { command: parsed.command } : {}),
  };
}

/** The root message a slash command posts, so its work has a thread to continue in. */
export function commandRootText(
  body: SlackCommandBody,
  parsed: Exclude<ParsedCommandText, { kind: 'invalid' }>,
): string {
  const who = `<@${body.user_id}>`;
  if (parsed.kind === 'question') return `${who} asked: ${escapeMrkdwn(truncate(parsed.text, 300))}`;
  const { command } = parsed;
  if (command.name === 'run') return `${who} ran ${command.language} code with \`${body.command} run\`:`;
  if (command.name === 'query') return `${who} ran an SQL query with \`${body.command} run\`:`;
  if (command.name === 'schedule') return `${who} scheduled: ${escapeMrkdwn(truncate(command.text, 300))}`;
  return `${who} used \`${body.command} ${command.name}\``;
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}

/** The code a run command shows under its root message: the program, or the query's SQL; undefined for others. */
export function runCodeOf(command: InboundCommand): string | undefined {
  if (command.name === 'run') return command.code;
  if (command.name === 'query') return command.body;
  return undefined;
}
