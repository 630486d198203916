import type { NamedCommand } from '../ports/platform-profile.js';

/** The answer to the help command, naming the commands as the platform's profile spells them. */
export function helpText(command: Readonly<Record<NamedCommand, string>>, scheduleCommand?: string): string {
  return [
    '*Threadlab* runs Python and bash for this thread in a private, locked-down container.',
    '',
    '• Ask in plain language: I write code, run it, read the output and fix it until the answer is verified.',
    '• Upload CSV, Excel, JSON or any file into the thread: it lands in `/mnt/data`, where your code can read it.',
    '• Send a fenced code block (```python, ```bash, ```r or ```js) and it runs as is, no model involved.',
    '• Attach a script (.py, .R, .js, .sh or a notebook, .ipynb) and send `run`: it runs as is, with the other files in `/mnt/data`.',
    '• Variables and files persist between messages in this thread while it is active.',
    '',
    `\`${command.run} <code>\` runs code directly · \`${command.files}\` lists this thread's files · ` +
      `\`${command.reset}\` clears variables and files · \`${command.help}\` shows this.`,
    `\`${command.export}\` sends this thread as a Jupyter notebook (the code that ran successfully, with its outputs) and a \`requirements.txt\`.`,
    `\`${command.usage}\` shows what you and this workspace used today of the daily budgets, if any are set.`,
    ...(scheduleCommand
      ? [
          `\`${scheduleCommand} every day 09:00 <question>\` (or \`rerun\`) posts a report here on a schedule; \`${scheduleCommand} list\`, \`${scheduleCommand} cancel N\`.`,
        ]
      : []),
    'The container has no network access; charts and files your code writes come back here.',
  ].join('\n');
}
