import { resolve } from 'node:path';
import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import { chatBody, closeAttachments, openAttachments } from '../daemon/chat-body.js';
import { callDaemon } from '../daemon/client.js';
import { configFingerprint } from '../daemon/fingerprint.js';
import type { ChatReplySummary } from '../daemon/protocol.js';
import { describeRefused } from './out-report.js';
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
  if (reply.figures) parts.push(reply.figures.line);
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
  usage: `Usage: threadlab chat --thread KEY [--attach FILE]... [--out DIR [--overwrite]] [--json] MESSAGE

Sends MESSAGE to the thread KEY as if it were posted in a chat, and prints the reply. Consecutive
calls with the same --thread continue the same conversation and sandbox session.
  --thread KEY    the conversation (required)
  --attach FILE   upload a file into the thread's /mnt/data first (repeatable, at most 20;
                  read by this command with your rights)
  --out DIR       write the reply's images and files under DIR; names with a dot component or
                  "..", and links already in DIR, are refused
  --overwrite     with --out: replace existing files (refused otherwise)
  --json          print { kind, text, runs: [{ language, code, status }], images, files,
                  refused: [{ name, reason }], figures?: { checked, notFound, line } } as JSON
Exit status: 0 for an answer with every file written, 1 otherwise.
A MESSAGE that is a fenced code block runs as is; anything else needs an LLM (OPENAI_API_KEY / OPENAI_BASE_URL).
The MESSAGE /export (with --out DIR) writes the thread as thread.ipynb and requirements.txt under DIR.`,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      {
        thread: { type: 'string' },
        attach: { type: 'string', multiple: true },
        out: { type: 'string' },
        overwrite: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      'chat',
    );
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    if (!values.thread) {
      io.err('chat needs --thread KEY. Run `threadlab chat --help`.\n');
      return 2;
    }
    if (values.overwrite && !values.out) {
      io.err('--overwrite: only meaningful with --out DIR\n');
      return 2;
    }
    const text = positionals.join(' ');
    const paths = (values.attach ?? []).map((f) => resolve(f));
    if (!text.trim() && paths.length === 0) {
      io.err('chat needs a MESSAGE or at least one --attach FILE.\n');
      return 2;
    }
    if (text.trim().toLowerCase() === '/export' && !values.out) {
      io.err('/export writes thread.ipynb and requirements.txt: add --out DIR.\n');
      return 2;
    }
    const config = loadConfig(io.env);
    const attachments = await openAttachments(paths, { maxBytes: config.sandbox.maxFileBytes }).catch(
      (err: Error) => err,
    );
    if (attachments instanceof Error) {
      io.err(`${attachments.message}\n`);
      return 2;
    }
    try {
      await prepareImage(config, io);
      const header = {
        thread: values.thread,
        text,
        ...(values.out ? { outDir: resolve(values.out), overwrite: values.overwrite ?? false } : {}),
      };
      const target = { dataDir: config.dataDir, env: io.env, config: configFingerprint(config), notice: io.err };
      for await (const frame of callDaemon(target, '/chat', () => chatBody(header, attachments))) {
        if (frame.type === 'progress' && !values.json) {
          const line = describeProgress(frame.event);
          if (line) io.err(line);
        } else if (frame.type === 'failure') {
          io.err(`${frame.message}\n`);
          return 1;
        } else if (frame.type === 'chat_reply') {
          io.out(values.json ? `${JSON.stringify(frame.reply, null, 2)}\n` : printReply(frame.reply));
          io.err(describeRefused(frame.reply));
          return frame.reply.kind === 'error' || frame.reply.refused.length > 0 ? 1 : 0;
        }
      }
    } finally {
      await closeAttachments(attachments);
    }
    io.err('The daemon closed the connection without a reply; see its log.\n');
    return 1;
  },
};
