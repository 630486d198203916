import { describe, expect, it } from 'vitest';
import { commandFromView, toCommandMessage, type CommandView } from '../../../adapters/discord/map-interaction.js';
import { commandRootText, parseCommandText, type SlackCommandBody } from '../../../adapters/slack/map-command.js';
import { loadConfig } from '../../../src/config/index.js';
import { intentOf } from '../../../src/core/read-intent.js';
import { isIntent } from '../../../src/domain/intent.js';
import type { Platform } from '../../../src/domain/thread-key.js';
import { helpText } from '../../../src/core/help.js';
import { adapterMessage, profileOf } from '../../fakes/profiles.js';

const message = adapterMessage;

describe('the schedule command on every surface', () => {
  it('is typed as `schedule …` in a thread everywhere, and `/schedule …` on the web chat and Discord', () => {
    for (const platform of ['slack', 'discord', 'web'] as const) {
      expect(intentOf(message(platform, 'schedule every day 09:00 How many?'))).toEqual({
        kind: 'schedule',
        text: 'every day 09:00 How many?',
      });
      expect(intentOf(message(platform, 'Schedule list'))).toEqual({ kind: 'schedule', text: 'list' });
      expect(intentOf(message(platform, 'schedule cancel 2'))).toEqual({ kind: 'schedule', text: 'cancel 2' });
      expect(intentOf(message(platform, 'schedule TZ=Europe/Paris every day 09:00 x'))).toMatchObject({
        kind: 'schedule',
      });
      // A question that starts with the word stays a question.
      expect(intentOf(message(platform, 'schedule a meeting for me?'))).toMatchObject({ kind: 'ask' });
    }
    expect(intentOf(message('web', '/schedule list'))).toEqual({ kind: 'schedule', text: 'list' });
    expect(intentOf(message('discord', '/schedule'))).toEqual({ kind: 'schedule', text: '' });
    // The prefixed form takes anything, so its mistakes are explained by the parser rather than sent to the model.
    expect(intentOf(message('web', '/schedule daily 9am x'))).toEqual({ kind: 'schedule', text: 'daily 9am x' });
    expect(intentOf(message('cli', 'schedule list'))).toMatchObject({ kind: 'ask' });
  });

  it('is /interpreter schedule on Slack and the /schedule slash command on Discord', () => {
    expect(parseCommandText('schedule  every 6h  rerun')).toEqual({
      kind: 'command',
      command: { name: 'schedule', text: 'every 6h  rerun' },
    });
    const body: SlackCommandBody = { command: '/interpreter', team_id: 'T1', channel_id: 'C1', user_id: 'U1' };
    const parsed = parseCommandText('schedule every day 09:00 <b>sales</b>');
    if (parsed.kind === 'invalid') throw new Error('invalid');
    const root = commandRootText(body, parsed);
    expect(root).toMatch(/^<@U1> scheduled: every day 09:00 /);
    expect(root).not.toContain('<b>');
    const view = { commandName: 'schedule', options: { what: 'every monday 08:30 rerun' } } as unknown as CommandView;
    expect(commandFromView(view)).toEqual({ name: 'schedule', text: 'every monday 08:30 rerun' });
    const long = { commandName: 'schedule', options: { what: 'x'.repeat(10_000) } } as unknown as CommandView;
    expect((commandFromView(long) as { text: string }).text).toHaveLength(4000);
    const full: CommandView = {
      id: '1',
      token: 'tok',
      applicationId: 'app',
      commandName: 'schedule',
      options: { what: 'list' },
      guildId: '100000000000000001',
      channel: { id: '200000000000000002', type: 11, parentId: '300000000000000003' },
      user: { id: '400000000000000004', name: 'ann', bot: false },
      createdAtMs: 0,
    };
    expect(toCommandMessage(full)).toMatchObject({
      text: '/schedule list',
      command: { name: 'schedule', text: 'list' },
    });
  });

  it('rides on a job as an intent: schedule and rerun are intents, malformed ones are not', () => {
    expect(isIntent({ kind: 'schedule', text: 'list' })).toBe(true);
    expect(isIntent({ kind: 'rerun' })).toBe(true);
    expect(isIntent({ kind: 'schedule' })).toBe(false);
    expect(isIntent({ kind: 'schedule', text: 5 })).toBe(false);
  });
});

describe('THREADLAB_SCHEDULES and THREADLAB_SCHEDULE_MIN_INTERVAL', () => {
  it('default to 5 per user, 50 per workspace and an hour', () => {
    expect(loadConfig({}).schedules).toEqual({
      limits: { enabled: true, perUser: 5, perWorkspace: 50 },
      minIntervalMs: 3_600_000,
    });
  });

  it('read off, either part alone, and any order', () => {
    expect(loadConfig({ THREADLAB_SCHEDULES: 'off' }).schedules.limits).toEqual({ enabled: false });
    expect(loadConfig({ THREADLAB_SCHEDULES: '10/workspace, 2/user' }).schedules.limits).toEqual({
      enabled: true,
      perUser: 2,
      perWorkspace: 10,
    });
    expect(loadConfig({ THREADLAB_SCHEDULES: '3/user' }).schedules.limits).toMatchObject({
      perUser: 3,
      perWorkspace: 50,
    });
    expect(loadConfig({ THREADLAB_SCHEDULE_MIN_INTERVAL: '2s' }).schedules.minIntervalMs).toBe(2000);
    expect(loadConfig({ THREADLAB_SCHEDULE_MIN_INTERVAL: '1d' }).schedules.minIntervalMs).toBe(86_400_000);
  });

  it('refuse anything else, naming the variable and the format', () => {
    for (const bad of [
      '5',
      'on',
      '5/users',
      '0/user',
      '5/user,6/user',
      '-1/user',
      '100/user,10/workspace',
      '2000/workspace',
    ])
      expect(() => loadConfig({ THREADLAB_SCHEDULES: bad }), bad).toThrow(/THREADLAB_SCHEDULES/);
    expect(() => loadConfig({ THREADLAB_SCHEDULES: 'lots' })).toThrow(/off, or the most per user and per workspace/);
    for (const bad of ['1', '0s', '500ms', '1w', 'h', '1.5h'])
      expect(() => loadConfig({ THREADLAB_SCHEDULE_MIN_INTERVAL: bad }), bad).toThrow(
        /THREADLAB_SCHEDULE_MIN_INTERVAL.*at least 1s/,
      );
  });
});

describe('help names the schedule command where it can be used', () => {
  it('as the platform writes it, and not in the CLI', () => {
    const help = (platform: Platform) => {
      const profile = profileOf(platform);
      return helpText(profile.commandNames, profile.scheduleCommand);
    };
    expect(help('discord')).toContain('`/schedule every day 09:00 <question>` (or `rerun`) posts a report here');
    expect(help('web')).toContain('`/schedule list`');
    expect(help('slack')).toContain('`schedule cancel N`');
    expect(help('cli')).not.toContain('schedule');
  });
});
