/** The help text of every platform's help command; `command` is how the platform spells it. */
export function helpText(command: { run: string; reset: string; files: string; help: string }): string {
  return [
    '*Threadlab* runs Python and bash for this thread in a private, locked-down container.',
    '',
    '• Ask in plain language: I write code, run it, read the output and fix it until the answer is verified.',
    '• Upload CSV, Excel, JSON or any file into the thread: it lands in `/mnt/data`, where your code can read it.',
    '• Send a fenced code block (```python or ```bash) and it runs as is, no model involved.',
    '• Variables and files persist between messages in this thread while it is active.',
    '',
    `\`${command.run} <code>\` runs code directly · \`${command.files}\` lists this thread's files · ` +
      `\`${command.reset}\` clears variables and files · \`${command.help}\` shows this.`,
    'The container has no network access; charts and files your code writes come back here.',
  ].join('\n');
}
