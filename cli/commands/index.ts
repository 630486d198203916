import type { Command } from '../args.js';

/** A subcommand listed by `threadlab --help`; its module (and so its dependencies) loads only when used. */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

/** Every subcommand of `threadlab`, in the order `--help` lists them. */
export const commands: CommandEntry[] = [
  {
    name: 'start',
    summary: 'run the bot with every configured adapter (the local web chat when none is)',
    load: async () => (await import('./start.js')).startCommand,
  },
  {
    name: 'doctor',
    summary: 'check Docker, the sandbox image, Redis, platform credentials and the LLM endpoint',
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
  {
    name: 'sandbox',
    summary: 'build the sandbox image (sandbox build)',
    load: async () => (await import('./sandbox-build.js')).sandboxCommand,
  },
  {
    name: 'exec',
    summary: 'run code in a sandbox session through the same path the chat uses',
    load: async () => (await import('./exec.js')).execCommand,
  },
  {
    name: 'chat',
    summary: 'send one message through the full path (session, sandbox, model loop, reply)',
    load: async () => (await import('./chat.js')).chatCommand,
  },
  {
    name: 'bench',
    summary: 'benchmarks, side by side in one run (bench sandbox|render|queue|egress|governance|figures)',
    load: async () => (await import('./bench.js')).benchCommand,
  },
  {
    name: 'eval',
    summary: 'run the bundled data-analysis tasks against the configured model, with and without code execution',
    load: async () => (await import('./eval.js')).evalCommand,
  },
  {
    name: 'discord',
    summary: 'register the Discord slash commands (discord register)',
    load: async () => (await import('./discord.js')).discordCommand,
  },
  {
    name: 'purge',
    summary: "delete a thread's, a user's or idle threads' data and report it (purge --thread|--user|--older-than)",
    load: async () => (await import('./purge.js')).purgeCommand,
  },
  {
    name: 'audit',
    summary: 'print the audit trail of runs, model calls and egress, filtered (--user, --thread, --since, --json)',
    load: async () => (await import('./audit.js')).auditCommand,
  },
  {
    name: 'feedback',
    summary: "compare the models in use by readers' 👍/👎 on their answers, from the audit trail (--since, --json)",
    load: async () => (await import('./feedback.js')).feedbackCommand,
  },
  {
    name: 'replay',
    summary: "play a recorded turn (THREADLAB_LLM_RECORD) back against today's code and print where it differs",
    load: async () => (await import('./replay.js')).replayCommand,
  },
  {
    name: 'daemon',
    summary: 'the background process that keeps exec/chat sessions (daemon stop)',
    load: async () => (await import('./daemon.js')).daemonCommand,
  },
];
