import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../config.js';
import type { ProgressEvent } from '../../domain/progress.js';
import { callDaemon, ensureDaemon } from '../daemon/client.js';
import type { ChatReplySummary } from '../daemon/protocol.js';
import { prepareImage } from './prepare-image.js';

function describeProgress(event: ProgressEvent): string | undefined {
  switch (event.type) {
    case 'thinking':
      return `… thinking (round ${event.round})\n`;
    case 'code':
      return `▶ running ${event.language}:\n${event.code.replace(/^/gm, '  ')}\n`;
    case 'output':
      return event.text;
    case 'run_finished':
      return `■ ${event.status} in ${event.durationMs} ms\n`;
    case 'file':
      return `+ ${event.artifact.path}\n`;
    default:
      return undefined;
  }
}

function printReply(reply: ChatReplySummary): string {
  const parts = [reply.text];
  if (reply.images.length) parts.push(`Images: ${reply.images.join(', ')}`);
  if (reply.files.length) parts.push(`Files: ${reply.files.join(', ')}`);
  for (const o of reply.omitted) parts.push(`Not attached: ${o.name} (${o.bytes} bytes): ${o.reason}`);
  if (reply.footer) {
    const f = reply.footer;
    parts.push(
      `— ${(f.durationMs / 1000).toFixed(1)} s · ${f.runs} run${f.runs === 1 ? '' : 's'}${f.tokens ? ` · ${f.tokens} tokens` : ''}${f.model ? ` · ${f.model}` : ''}`,
    );
  }
  return `${parts.join('\n\n')}\n`;
}

export const chatCommand: Command = {
  name: 'chat',
  usage: `Usage: threadlab chat --thread KEY [--attach FILE]... [--out DIR] [--json] MESSAGE

Sends MESSAGE to the thread KEY as if it were posted in a chat, and prints the reply. Consecutive
calls with the same --thread continue the same conversation and sandbox session.
  --thread KEY    the conversation (required)
  --attach FILE   upload a file into the thread's /mnt/data first (repeatable)
  --out DIR       write the reply's images and files under DIR
  --json          print { kind, text, runs: [{ language, code, status }], images, files } as JSON
A MESSAGE that is a fenced code block runs as is; anything else needs an LLM (OPENAI_API_KEY / OPENAI_BASE_URL).`,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      {
        thread: { type: 'string' },
        attach: { type: 'string', multiple: true },
        out: { type: 'string' },
        json: { type: 'boolean' },
      },
      'chat',
    );
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    if (!values.thread) {
      io.err('chat needs --thread KEY. Run `threadlab chat --help`.\n');
      return 2;
    }
    const text = positionals.join(' ');
    const attachments = (values.attach ?? []).map((f) => resolve(f));
    for (const file of attachments) {
      if (
        !(await access(file).then(
          () => true,
          () => false,
        ))
      ) {
        io.err(`--attach: cannot read ${file}\n`);
        return 2;
      }
    }
    if (!text.trim() && attachments.length === 0) {
      io.err('chat needs a MESSAGE or at least one --attach FILE.\n');
      return 2;
    }
    const config = loadConfig(io.env);
    await prepareImage(config, io);
    const socket = await ensureDaemon(config.dataDir, io.env);
    const body = { thread: values.thread, text, attachments, ...(values.out ? { outDir: resolve(values.out) } : {}) };
    for await (const frame of callDaemon(socket, '/chat', body)) {
      if (frame.type === 'progress' && !values.json) {
        const line = describeProgress(frame.event);
        if (line) io.err(line);
      } else if (frame.type === 'failure') {
        io.err(`${frame.message}\n`);
        return 1;
      } else if (frame.type === 'chat_reply') {
        io.out(values.json ? `${JSON.stringify(frame.reply, null, 2)}\n` : printReply(frame.reply));
        return frame.reply.kind === 'error' ? 1 : 0;
      }
    }
    io.err('The daemon closed the connection without a reply; see its log.\n');
    return 1;
  },
};
