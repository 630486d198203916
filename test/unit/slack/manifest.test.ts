import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { RUN_SHORTCUT_CALLBACK_ID } from '../../../adapters/slack/map-shortcut.js';

const manifest = readFileSync(new URL('../../../adapters/slack/manifest.yml', import.meta.url), 'utf8');

/** The items of the YAML list under `key:` (a flat list of scalars, as the manifest uses). */
function listUnder(key: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((l) => l.trim() === `${key}:`);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^\s*- (\S+)\s*$/.exec(line);
    if (!m) break;
    items.push(m[1]!);
  }
  return items;
}

describe('Slack app manifest', () => {
  it('asks for exactly the scopes the adapter uses', () => {
    expect(listUnder('bot').sort()).toEqual(
      [
        'app_mentions:read', // app_mention
        'assistant:write', // assistant.threads.setSuggestedPrompts, and setStatus without agent sessions
        'channels:history', // message.channels: thread follow-ups
        'channels:read', // conversations.info: the name of the channel a user looks at
        'groups:read', // the same for private channels
        'chat:write', // chat.postMessage / update / delete
        'commands', // the slash command
        'files:read', // url_private_download, files.info
        'files:write', // filesUploadV2
        'groups:history', // message.groups
        'im:history', // message.im: direct messages
        'users:read', // users.info: a schedule's time zone
      ].sort(),
    );
  });

  it('subscribes to the events the listeners handle, and nothing else', () => {
    expect(listUnder('bot_events').sort()).toEqual([
      'agent_session_stopped', // Slack's native Stop on a streaming answer
      'app_context_changed', // what the user is looking at
      'app_home_opened', // the Messages tab opened: suggested prompts
      'app_mention',
      'message.channels',
      'message.groups',
      'message.im',
    ]);
  });

  it('is an agent app (agent_view), not on the retiring assistant_view', () => {
    expect(manifest).toMatch(/\n {2}agent_view:\n\s+agent_description: \S/);
    expect(manifest).not.toMatch(/^\s*assistant_view:|^\s*assistant_description:|^\s*- assistant_thread_started/m);
  });

  it('declares the message shortcut Run in Threadlab with the callback id the adapter listens to', () => {
    expect(manifest).toMatch(
      new RegExp(
        `shortcuts:\\n\\s+- name: Run in Threadlab\\n\\s+type: message\\n\\s+callback_id: ${RUN_SHORTCUT_CALLBACK_ID}\\n`,
      ),
    );
  });

  it('declares the default slash command, interactivity for the Stop button and Socket Mode', () => {
    expect(manifest).toContain(`- command: ${loadConfig({}).slack.command}`);
    expect(manifest).toMatch(/interactivity:\n\s+is_enabled: true/);
    expect(manifest).toMatch(/socket_mode_enabled: true/);
  });
});
