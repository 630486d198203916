import type { SourceSettings } from '../src/config/sources.js';
import type { Check } from './doctor-check.js';
import type { SourceProbe } from '../adapters/postgres/role-check.js';

export type ProbeSource = (settings: SourceSettings) => Promise<SourceProbe>;

const DOCS = 'docs/data-sources.md';
/** Findings listed per source before "and N more". */
const SHOWN = 5;

const list = (items: string[]) =>
  items.slice(0, SHOWN).join('; ') + (items.length > SHOWN ? `; and ${items.length - SHOWN} more` : '');

/**
 * One line per source (THREADLAB_SOURCES_FILE): reachable and its server, then whether its role could write. A role
 * that could write is a warning (every query still runs READ ONLY); one that may run programs on the server, or a
 * superuser, fails: the bot refuses to query it.
 */
export async function checkSources(sources: readonly SourceSettings[], probe: ProbeSource): Promise<Check[]> {
  return Promise.all(
    sources.map(async (source): Promise<Check> => {
      const name = `Source ${source.name}`;
      const found = await probe(source);
      if (!found.ok)
        return {
          name,
          status: 'fail',
          detail: found.message,
          fix: `correct "${source.name}" in THREADLAB_SOURCES_FILE or start its server`,
        };
      const where = `reachable (PostgreSQL ${found.version}, role ${found.user})`;
      if (found.dangerous.length > 0)
        return {
          name,
          status: 'fail',
          detail: `${where}, but its role ${list(found.dangerous)}: Threadlab will not query it`,
          fix: `create a read-only role and use it in "${source.name}": see ${DOCS}`,
        };
      if (found.writes.length > 0)
        return {
          name,
          status: 'warn',
          detail: `${where}; its role could write: ${list(found.writes)}`,
          fix: `still only read: every query runs in a READ ONLY transaction, but create a read-only role: see ${DOCS}`,
        };
      return { name, status: 'ok', detail: `${where}; the role can only read` };
    }),
  );
}
