import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../../src/logger.js';
import { dataDirLayout } from '../../src/domain/data-dir.js';

/** Where the bot notes that its Slack app still runs on `assistant_view`, under THREADLAB_DATA_DIR; `threadlab doctor` reads it. */

/** How to move an app from `assistant_view` to `agent_view`, in one line (the README says it at length). */
export const MIGRATE_TO_AGENT_VIEW =
  'This Slack app is on the retiring assistant_view (it received assistant_thread_started). To migrate: in the app ' +
  "settings' App Manifest, replace assistant_view/assistant_description with agent_view/agent_description and add the " +
  'app_home_opened and app_context_changed events and the channels:read and groups:read scopes, as in ' +
  'adapters/slack/manifest.yml (or open the Agent tab and update the app), save, then reinstall the app to the ' +
  'workspace. Both kinds keep working meanwhile; see "Migrating an existing app" in adapters/slack/README.md.';

const note = z.object({ workspace: z.string().max(64), atMs: z.number() });

/**
 * Says once per process, in the log and in a small file for `threadlab doctor`, that the app still receives
 * `assistant_thread_started` (an app on `assistant_view`) and how to migrate. Never throws.
 */
export class AssistantViewNotice {
  private said = false;

  constructor(private readonly options: { logger: Logger; dataDir?: string }) {}

  /** Called for each `assistant_thread_started`; only the first does anything. */
  seen(workspace: string): void {
    if (this.said) return;
    this.said = true;
    this.options.logger.warn({ workspace, event: 'assistant_thread_started' }, MIGRATE_TO_AGENT_VIEW);
    if (!this.options.dataDir) return;
    const file = dataDirLayout(this.options.dataDir).slackAssistantViewNote;
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ workspace, atMs: Date.now() }), { mode: 0o600 });
    } catch (err) {
      this.options.logger.debug({ err, file }, 'could not note the assistant_view app for threadlab doctor');
    }
  }
}

/**
 * Forgets the note once the app is seen on `agent_view` (an `app_home_opened` of the Messages tab or an
 * `app_context_changed`, which only agent apps receive), so doctor stops asking for a migration that was done.
 */
export function clearAssistantViewNote(dataDir: string | undefined): void {
  if (dataDir) rmSync(dataDirLayout(dataDir).slackAssistantViewNote, { force: true });
}

/** What the bot noted in `dataDir` (see {@link AssistantViewNotice}), or undefined when it noted nothing. */
export function readAssistantViewNote(dataDir: string): { workspace: string; atMs: number } | undefined {
  try {
    const parsed = note.safeParse(JSON.parse(readFileSync(dataDirLayout(dataDir).slackAssistantViewNote, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
