import { describe, expect, it } from 'vitest';
import { commandFromView, type CommandView } from '../../../adapters/discord/map-interaction.js';
import { parseCommandText } from '../../../adapters/slack/map-command.js';
import { intentOf } from '../../../src/core/read-intent.js';
import { adapterMessage } from '../../fakes/profiles.js';

const message = adapterMessage;

describe('the usage command on every surface', () => {
  it('is /usage on the web chat and the CLI, usage typed in a Slack thread', () => {
    expect(intentOf(message('web', '/usage'))).toEqual({ kind: 'usage' });
    expect(intentOf(message('cli', '/usage'))).toEqual({ kind: 'usage' });
    expect(intentOf(message('slack', 'usage'))).toEqual({ kind: 'usage' });
    // Not a command where it is not one: a question mentioning usage, or the bare word on the web.
    expect(intentOf(message('web', 'usage'))).toEqual({ kind: 'ask', text: 'usage' });
    expect(intentOf(message('web', '/usage of pandas'))).toMatchObject({ kind: 'ask' });
  });

  it('is /interpreter usage on Slack and the /usage slash command on Discord', () => {
    expect(parseCommandText('usage')).toEqual({ kind: 'command', command: { name: 'usage' } });
    const view = { commandName: 'usage', options: {} } as unknown as CommandView;
    expect(commandFromView(view)).toEqual({ name: 'usage' });
  });
});
