import { describe, expect, it } from 'vitest';
import {
  commandRootText,
  mapSlashCommand,
  parseCommandText,
  type SlackCommandBody,
} from '../../../adapters/slack/map-command.js';

describe('parseCommandText', () => {
  it('parses run with a fenced block, its language, inline code and bare code', () => {
    expect(parseCommandText('run ```python\nimport math\nprint(math.pi)\n```')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'python', code: 'import math\nprint(math.pi)' },
    });
    expect(parseCommandText('run ```sh\nls -la\n```')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'bash', code: 'ls -la' },
    });
    expect(parseCommandText('run ```print(1)```')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'python', code: 'print(1)' },
    });
    expect(parseCommandText('run ```python print(6 * 7)```')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'python', code: 'print(6 * 7)' },
    });
    expect(parseCommandText('run ```import os; print(os.getcwd())```')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'python', code: 'import os; print(os.getcwd())' },
    });
    expect(parseCommandText('run `print(2)`')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'python', code: 'print(2)' },
    });
    expect(parseCommandText('RUN print(1 &lt; 2)')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'python', code: 'print(1 < 2)' },
    });
  });

  it('takes R and JavaScript blocks', () => {
    expect(parseCommandText('run ```r\nsummary(1:3)\n```')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'r', code: 'summary(1:3)' },
    });
    expect(parseCommandText('run ```js\n[1, 2].length\n```')).toEqual({
      kind: 'command',
      command: { name: 'run', language: 'javascript', code: '[1, 2].length' },
    });
  });

  it('explains a run without code or with an unknown language', () => {
    expect(parseCommandText('run')).toMatchObject({ kind: 'invalid' });
    expect(parseCommandText('run ```ruby\nputs 1\n```')).toEqual({
      kind: 'invalid',
      error: 'Unknown language `ruby`: use python, bash, r, javascript.',
    });
    expect(parseCommandText('run ```python\n```')).toMatchObject({ kind: 'invalid' });
  });

  it('parses reset, files, help (also empty) and stop; anything else is a question', () => {
    expect(parseCommandText('reset')).toEqual({ kind: 'command', command: { name: 'reset' } });
    expect(parseCommandText(' files ')).toEqual({ kind: 'command', command: { name: 'files' } });
    expect(parseCommandText('')).toEqual({ kind: 'command', command: { name: 'help' } });
    expect(parseCommandText(undefined)).toEqual({ kind: 'command', command: { name: 'help' } });
    expect(parseCommandText('stop')).toEqual({ kind: 'command', command: { name: 'stop' } });
    expect(parseCommandText('plot sin(x) from 0 to 10')).toEqual({
      kind: 'question',
      text: 'plot sin(x) from 0 to 10',
    });
  });
});

describe('mapSlashCommand', () => {
  const body: SlackCommandBody = {
    command: '/interpreter',
    text: 'run print(1)',
    team_id: 'T1',
    channel_id: 'C1',
    user_id: 'U1',
    user_name: 'ada',
    response_url: 'https://hooks.slack.com/commands/T1/1/abc',
    trigger_id: '13345224609.738474920.8088930838d88f008e0',
  };

  it('keys the session by the root message posted for the command', () => {
    const parsed = parseCommandText(body.text);
    if (parsed.kind === 'invalid') throw new Error('unexpected');
    const m = mapSlashCommand({ body, parsed, rootTs: '1700000000.000100', nowMs: 5 });
    expect(m.thread).toEqual({ platform: 'slack', workspace: 'T1', channel: 'C1', thread: '1700000000.000100' });
    expect(m.command).toEqual({ name: 'run', language: 'python', code: 'print(1)' });
    expect(m.user).toEqual({ id: 'U1', name: 'ada' });
    expect(m.replyContext).toMatchObject({ responseUrl: body.response_url, ts: '1700000000.000100' });
  });

  it('escapes a question in the root text', () => {
    expect(commandRootText(body, { kind: 'question', text: 'is 1 < 2 & 3 > 2?' })).toBe(
      '<@U1> asked: is 1 &lt; 2 &amp; 3 &gt; 2?',
    );
  });
});
