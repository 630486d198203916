import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
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
        'assistant:write', // assistant.threads.setStatus / setSuggestedPrompts
        'channels:history', // message.channels: thread follow-ups
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
      'app_mention',
      'assistant_thread_started', // suggested prompts
      'message.channels',
      'message.groups',
      'message.im',
    ]);
  });

  it('turns on the assistant container', () => {
    expect(manifest).toMatch(/assistant_view:\n\s+assistant_description: \S/);
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
