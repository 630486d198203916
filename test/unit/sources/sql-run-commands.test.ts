/**
 * Run commands whose code is an SQL query (issue 38): Slack's `/interpreter run`, Discord's `/run` and its modal map
 * an sql block (or a first line `-- source: NAME`) to the `query` command, and the core reads it as the same `query`
 * intent as a message that is one sql block. Programs stay programs.
 */
import { describe, expect, it } from 'vitest';
import { runCommand, toCommandMessage } from '../../../adapters/discord/map-interaction.js';
import { modalFor, parseModalId, toModalMessage } from '../../../adapters/discord/modal.js';
import { commandRootText, parseCommandText, runCodeOf } from '../../../adapters/slack/map-command.js';
import { toInboundMessage } from '../../../adapters/web/map-request.js';
import { intentOf } from '../../../src/core/read-intent.js';
import type { InboundCommand, InboundMessage } from '../../../src/domain/messages.js';
import { sqlRunOf } from '../../../src/domain/sql-run.js';

const BLOCK = '```sql\n-- source: sales\nSELECT count(*) AS n FROM sales\n```';
const QUERY = { name: 'query', body: '-- source: sales\nSELECT count(*) AS n FROM sales', info: '' };

function withCommand(command: InboundCommand): InboundMessage {
  return {
    id: 'm1',
    thread: { platform: 'slack', workspace: 'T1', channel: 'C1', thread: '1.0' },
    user: { id: 'U1' },
    text: '',
    attachments: [],
    command,
    receivedAtMs: 0,
  };
}

describe('sqlRunOf: the one place that decides run code is a query', () => {
  it('reads a whole sql block, its source on the fence line, a one-line block and a first source line', () => {
    expect(sqlRunOf(BLOCK)).toEqual({ body: QUERY.body, info: '' });
    expect(sqlRunOf('```sql sales\nSELECT 1\n```')).toEqual({ body: 'SELECT 1', info: 'sales' });
    expect(sqlRunOf('```postgres SELECT 1```')).toEqual({ body: 'SELECT 1', info: '' });
    expect(sqlRunOf('-- source: sales\nSELECT 1')).toEqual({ body: '-- source: sales\nSELECT 1', info: '' });
    expect(sqlRunOf('--source=sales\nSELECT 1')).toEqual({ body: '--source=sales\nSELECT 1', info: '' });
    expect(sqlRunOf('SELECT 1', 'sql')).toEqual({ body: 'SELECT 1', info: '' });
  });

  it('leaves programs, an empty block, a source line alone and text around a block to the code path', () => {
    expect(sqlRunOf('print(1)')).toBeUndefined();
    expect(sqlRunOf('```python\nprint(1)\n```')).toBeUndefined();
    expect(sqlRunOf('SELECT 1')).toBeUndefined();
    expect(sqlRunOf('```sql\n\n```')).toBeUndefined();
    expect(sqlRunOf('-- source: sales')).toBeUndefined();
    expect(sqlRunOf('SELECT 1', 'python')).toBeUndefined();
    expect(sqlRunOf(`look:\n${BLOCK}`)).toBeUndefined();
    expect(sqlRunOf('```sql\nSELECT 1\n```\n```sql\nSELECT 2\n```')).toBeUndefined();
  });

  it('the core reads the query command as the same intent as a message that is the block', () => {
    const fromCommand = intentOf(withCommand({ name: 'query', body: QUERY.body, info: '' }));
    const fromMessage = intentOf({
      ...withCommand({ name: 'help' }),
      command: undefined,
      text: BLOCK,
    } as InboundMessage);
    expect(fromCommand).toEqual({ kind: 'query', body: QUERY.body, info: '' });
    expect(fromCommand).toEqual(fromMessage);
  });
});

describe('Slack /interpreter run', () => {
  it('maps an sql block, a one-line block and a first line `-- source:` to the query command', () => {
    expect(parseCommandText(`run ${BLOCK}`)).toEqual({ kind: 'command', command: QUERY });
    expect(parseCommandText('run ```sql SELECT 1```')).toEqual({
      kind: 'command',
      command: { name: 'query', body: 'SELECT 1', info: '' },
    });
    // Slack sends `<` and `>` escaped; the query gets them back.
    expect(parseCommandText('run -- source: sales\nSELECT 1 WHERE 2 &gt; 1')).toEqual({
      kind: 'command',
      command: { name: 'query', body: '-- source: sales\nSELECT 1 WHERE 2 > 1', info: '' },
    });
    expect(parseCommandText('run ```python\nprint(1)\n```')).toMatchObject({ command: { name: 'run' } });
  });

  it('says it ran an SQL query and shows its SQL under the root message', () => {
    const body = { command: '/interpreter', team_id: 'T1', channel_id: 'C1', user_id: 'U1' };
    const parsed = parseCommandText(`run ${BLOCK}`);
    if (parsed.kind !== 'command') throw new Error('not a command');
    expect(commandRootText(body, parsed)).toBe('<@U1> ran an SQL query with `/interpreter run`:');
    expect(runCodeOf(parsed.command)).toBe(QUERY.body);
    expect(runCodeOf({ name: 'help' })).toBeUndefined();
  });
});

describe('Discord /run and its modal', () => {
  const base = {
    id: '1',
    token: 't',
    applicationId: 'A1',
    guildId: null,
    channel: { id: 'c', type: 1, parentId: null },
    user: { id: 'u', name: 'u', bot: false },
    createdAtMs: 0,
  };

  it("maps the code option's one-line sql block and a language option of sql to the query command", () => {
    const oneLine = toCommandMessage({ ...base, commandName: 'run', options: { code: '```sql SELECT 1```' } });
    expect(oneLine).toMatchObject({ command: { name: 'query', body: 'SELECT 1', info: '' }, text: 'SELECT 1' });
    expect(runCommand('SELECT 1', 'sql')).toEqual({ name: 'query', body: 'SELECT 1', info: '' });
    const chosen = toCommandMessage({
      ...base,
      commandName: 'run',
      options: { code: '```SELECT 2```', language: 'sql' },
    });
    expect(chosen?.command).toEqual({ name: 'query', body: 'SELECT 2', info: '' });
    expect(runCommand('```py print(1)```')).toEqual({ name: 'run', language: 'python', code: 'print(1)' });
  });

  it("maps the modal's multi-line sql block and a first line `-- source:` to the query command", () => {
    const submit = (text: string) =>
      toModalMessage({ ...base, customId: 'threadlab_modal:run', text, files: [] }) as {
        ok: true;
        message: InboundMessage;
      };
    expect(submit(BLOCK).message).toMatchObject({ command: QUERY, text: QUERY.body });
    expect(submit('-- source: sales\nSELECT 1').message.command).toEqual({
      name: 'query',
      body: '-- source: sales\nSELECT 1',
      info: '',
    });
    expect(submit('print(1)').message.command).toEqual({ name: 'run', language: 'python', code: 'print(1)' });
    // `/run language: sql` without code opens the form for sql: its bare text is the query.
    expect(parseModalId(modalFor({ kind: 'run', language: 'sql' }).custom_id)).toEqual({
      kind: 'run',
      language: 'sql',
    });
    const form = toModalMessage({ ...base, customId: 'threadlab_modal:run:sql', text: 'SELECT 3', files: [] });
    expect(form).toMatchObject({ ok: true, message: { command: { name: 'query', body: 'SELECT 3', info: '' } } });
  });
});

describe("the web chat's run", () => {
  it('is a message that is one block: an sql block there is the query intent', () => {
    const inbound = toInboundMessage({
      messageId: 'w1',
      threadId: 't1',
      text: BLOCK,
      attachments: [],
      receivedAtMs: 0,
    });
    expect(inbound.command).toBeUndefined();
    expect(intentOf(inbound)).toEqual({ kind: 'query', body: QUERY.body, info: '' });
  });
});
