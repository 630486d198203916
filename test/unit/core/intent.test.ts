import { describe, expect, it } from 'vitest';
import { intentOf } from '../../../src/core/read-intent.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { Platform } from '../../../src/domain/thread-key.js';
import { adapterMessage } from '../../fakes/profiles.js';

/** A message as the platform's adapter (the web chat's unless `platform` says) hands it to the core. */
function message(text: string, extra: Partial<InboundMessage> & { platform?: Platform } = {}): InboundMessage {
  const { platform = 'web', ...rest } = extra;
  return adapterMessage(platform, text, rest);
}

const CSV = { id: 'f1', name: 'data.csv', mime: 'text/csv', bytes: 8 };

describe('intentOf', () => {
  it('reads every intent', () => {
    expect(intentOf(message('/stop'))).toEqual({ kind: 'stop' });
    expect(intentOf(message('/reset'))).toEqual({ kind: 'reset' });
    expect(intentOf(message('/files'))).toEqual({ kind: 'files' });
    expect(intentOf(message('/help'))).toEqual({ kind: 'help' });
    expect(intentOf(message('```python\nprint(1)\n```'))).toEqual({
      kind: 'run',
      language: 'python',
      code: 'print(1)',
    });
    expect(intentOf(message('```bash\nls\n```'))).toEqual({ kind: 'run', language: 'bash', code: 'ls' });
    expect(intentOf(message('plot the sales by month'))).toEqual({ kind: 'ask', text: 'plot the sales by month' });
  });

  it("takes a platform's native command as it is, whatever the text says", () => {
    const run = { name: 'run', language: 'bash', code: 'echo hi' } as const;
    expect(intentOf(message('echo hi', { platform: 'discord', command: run }))).toEqual({
      kind: 'run',
      language: 'bash',
      code: 'echo hi',
    });
    // Discord's /run with code that has fences of its own still runs as given.
    const fenced = { name: 'run', language: 'python', code: 'print("""\n```\n""")' } as const;
    expect(intentOf(message(fenced.code, { platform: 'discord', command: fenced }))).toMatchObject({
      kind: 'run',
      code: fenced.code,
    });
    for (const name of ['reset', 'files', 'help', 'stop'] as const)
      expect(intentOf(message(`/${name}`, { platform: 'discord', command: { name } }))).toEqual({ kind: name });
    expect(intentOf(message('', { platform: 'slack', command: { name: 'help' } }))).toEqual({ kind: 'help' });
  });

  it('reads typed commands as each platform spells them, and only there', () => {
    expect(intentOf(message('reset', { platform: 'slack' }))).toEqual({ kind: 'reset' });
    expect(intentOf(message('Files', { platform: 'slack' }))).toEqual({ kind: 'files' });
    expect(intentOf(message('/reset', { platform: 'slack' }))).toEqual({ kind: 'ask', text: '/reset' });
    expect(intentOf(message('reset', { platform: 'web' }))).toEqual({ kind: 'ask', text: 'reset' });
    // Discord's commands are native slash commands; the CLI has none typed.
    expect(intentOf(message('reset', { platform: 'discord' }))).toEqual({ kind: 'ask', text: 'reset' });
    expect(intentOf(message('/reset', { platform: 'discord' }))).toEqual({ kind: 'ask', text: '/reset' });
    expect(intentOf(message('stop', { platform: 'cli' }))).toEqual({ kind: 'ask', text: 'stop' });
    expect(intentOf(message('/stop', { platform: 'cli' }))).toEqual({ kind: 'ask', text: '/stop' });
  });

  it('reads export as each platform types it: /export on the web and the CLI, export in Slack and Discord threads', () => {
    expect(intentOf(message(' /Export '))).toEqual({ kind: 'export' });
    expect(intentOf(message('/export', { platform: 'cli' }))).toEqual({ kind: 'export' });
    expect(intentOf(message('export', { platform: 'slack' }))).toEqual({ kind: 'export' });
    expect(intentOf(message('export', { platform: 'discord' }))).toEqual({ kind: 'export' });
    expect(intentOf(message('', { platform: 'discord', command: { name: 'export' } }))).toEqual({ kind: 'export' });
    expect(intentOf(message('export', { platform: 'web' }))).toEqual({ kind: 'ask', text: 'export' });
    expect(intentOf(message('/export', { platform: 'discord' }))).toEqual({ kind: 'ask', text: '/export' });
    expect(intentOf(message('export the data', { platform: 'slack' }))).toEqual({
      kind: 'ask',
      text: 'export the data',
    });
    expect(intentOf(message('export', { platform: 'cli' }))).toEqual({ kind: 'ask', text: 'export' });
  });

  it('takes /reset with spaces or other case around it, and nothing more', () => {
    expect(intentOf(message('/reset   '))).toEqual({ kind: 'reset' });
    expect(intentOf(message('\t/RESET \n'))).toEqual({ kind: 'reset' });
    expect(intentOf(message(' stop ', { platform: 'slack' }))).toEqual({ kind: 'stop' });
    expect(intentOf(message('/ reset'))).toEqual({ kind: 'ask', text: '/ reset' });
    expect(intentOf(message('/resets'))).toEqual({ kind: 'ask', text: '/resets' });
    expect(intentOf(message('/exports'))).toEqual({ kind: 'ask', text: '/exports' });
    expect(intentOf(message('/run print(1)'))).toEqual({ kind: 'ask', text: '/run print(1)' });
  });

  it('does not stop on a stop word inside a sentence', () => {
    expect(intentOf(message('please stop the loop', { platform: 'slack' }))).toEqual({
      kind: 'ask',
      text: 'please stop the loop',
    });
    expect(intentOf(message('/stop it now'))).toEqual({ kind: 'ask', text: '/stop it now' });
    expect(intentOf(message('stop\nand then reset', { platform: 'slack' }))).toMatchObject({ kind: 'ask' });
  });

  it('runs only a whole fenced block in a language the sandbox runs', () => {
    expect(intentOf(message('```\n1 + 1\n```'))).toEqual({ kind: 'run', language: 'python', code: '1 + 1' });
    expect(intentOf(message('```sh\necho hi\n```'))).toEqual({ kind: 'run', language: 'bash', code: 'echo hi' });
    expect(intentOf(message('```r\nx <- 1\n```'))).toEqual({ kind: 'run', language: 'r', code: 'x <- 1' });
    expect(intentOf(message('```js\n[1]\n```'))).toEqual({ kind: 'run', language: 'javascript', code: '[1]' });
    // A language we do not run goes to the model, which can say so or translate it.
    const ruby = '```ruby\nputs 1\n```';
    expect(intentOf(message(ruby))).toEqual({ kind: 'ask', text: ruby });
    // Text around the fence makes it a question about the code.
    const around = 'why does this fail?\n```python\n1/0\n```';
    expect(intentOf(message(around))).toEqual({ kind: 'ask', text: around });
    const after = '```python\n1/0\n```\nexplain';
    expect(intentOf(message(after))).toEqual({ kind: 'ask', text: after });
    expect(intentOf(message('```python\n\n```'))).toEqual({ kind: 'ask', text: '```python\n\n```' });
  });

  it('runs a fenced block sent with attachments (they land first), and asks the model about files with text', () => {
    expect(intentOf(message('```python\nprint(open("data.csv").read())\n```', { attachments: [CSV] }))).toEqual({
      kind: 'run',
      language: 'python',
      code: 'print(open("data.csv").read())',
    });
    expect(intentOf(message('what is in it?', { attachments: [CSV] }))).toEqual({
      kind: 'ask',
      text: 'what is in it?',
    });
    expect(intentOf(message('', { attachments: [CSV] }))).toEqual({ kind: 'ask', text: '' });
    expect(intentOf(message('/files', { attachments: [CSV] }))).toEqual({ kind: 'files' });
  });
});
