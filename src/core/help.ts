import type { Platform } from '../domain/thread-key.js';

/** How each platform spells the commands the help text names. */
const HELP_NAMES: Record<Platform, { run: string; reset: string; files: string; help: string; export: string }> = {
  // reset and files are sent as messages in the thread: a Slack slash command cannot name its thread.
  slack: { run: '/interpreter run', reset: 'reset', files: 'files', help: '/interpreter help', export: 'export' },
  discord: { run: '/run', reset: '/reset', files: '/files', help: '/help', export: '/export' },
  web: { run: '```python …```', reset: 'Reset', files: 'Files', help: 'Help', export: '/export' },
  cli: {
    run: 'threadlab exec',
    reset: 'threadlab chat --reset',
    files: 'threadlab chat --files',
    help: 'threadlab --help',
    export: 'threadlab chat --thread KEY --out DIR /export',
  },
};

/** How each platform spells the usage command (today's spend of the daily budgets). */
const USAGE_NAMES: Record<Platform, string> = {
  slack: '/interpreter usage',
  discord: '/usage',
  web: '/usage',
  cli: 'threadlab chat --thread KEY /usage',
};

/** The answer to the help command on a platform, naming the commands as that platform spells them. */
export function helpText(platform: Platform): string {
  const command = HELP_NAMES[platform];
  return [
    '*Threadlab* runs Python and bash for this thread in a private, locked-down container.',
    '',
    '• Ask in plain language: I write code, run it, read the output and fix it until the answer is verified.',
    '• Upload CSV, Excel, JSON or any file into the thread: it lands in `/mnt/data`, where your code can read it.',
    '• Send a fenced code block (```python, ```bash, ```r or ```js) and it runs as is, no model involved.',
    '• Variables and files persist between messages in this thread while it is active.',
    '',
    `\`${command.run} <code>\` runs code directly · \`${command.files}\` lists this thread's files · ` +
      `\`${command.reset}\` clears variables and files · \`${command.help}\` shows this.`,
    `\`${command.export}\` sends this thread as a Jupyter notebook (the code that ran successfully, with its outputs) and a \`requirements.txt\`.`,
    `\`${USAGE_NAMES[platform]}\` shows what you and this workspace used today of the daily budgets, if any are set.`,
    'The container has no network access; charts and files your code writes come back here.',
  ].join('\n');
}
