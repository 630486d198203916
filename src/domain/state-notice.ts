import type { StateRestore } from './execution.js';

/** `2026-11-23 10:02 UTC` from an ISO time; the text itself when it is not one. */
function when(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso.slice(0, 40);
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The sentence users, the model and the CLI all get when a thread's variables were loaded into a new container:
 * "restored 14 variables saved at 2026-11-23 10:02 UTC (the session was idle for 1 h); not restored: conn
 * (sqlite3.Connection), it (generator)".
 */
export function stateRestoredText(restore: StateRestore): string {
  const count = `${restore.variables} ${restore.variables === 1 ? 'variable' : 'variables'}`;
  const missing = restore.notRestored.length > 0 ? `; not restored: ${restore.notRestored.join(', ')}` : '';
  return `restored ${count} saved at ${when(restore.savedAt)} (${restore.reason})${missing}`;
}

/** Why the variables after the previous run were not saved. */
export function stateNotSavedText(notSaved: { reason: string }): string {
  return `the variables after the previous run were not saved: ${notSaved.reason}`;
}
