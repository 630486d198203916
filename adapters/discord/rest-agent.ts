import { createRequire } from 'node:module';
import type { RESTOptions } from 'discord.js';

/** The HTTP dispatcher type @discordjs/rest accepts (`RESTOptions.agent`), from its own undici. */
export type DiscordRestAgent = NonNullable<RESTOptions['agent']>;

interface UndiciOfRest {
  Agent: new () => DiscordRestAgent;
}

/**
 * A connection pool of the undici copy that @discordjs/rest itself imports, for `RESTOptions.agent`.
 *
 * Why not the global dispatcher: each undici copy installs its Agent as the process-wide dispatcher on
 * first load, and the first copy loaded wins. In `threadlab start` @slack/socket-mode loads undici 7
 * first; @discordjs/rest then called undici 7's Agent with its own undici 6 request and Node's
 * `FormData`, and every upload failed ("action is not a function"). With a pool of its own undici, the
 * request, the pool and the multipart encoding are one copy, whatever else the process loads and in
 * whatever order. Aligning on undici 7 is no way out: undici 7 refuses Node 20's `FormData` the same
 * way, and Node 20 is supported.
 */
export function createDiscordRestAgent(): DiscordRestAgent {
  const here = createRequire(import.meta.url);
  // Resolve as discord.js does: its @discordjs/rest, then that package's undici.
  const rest = createRequire(here.resolve('discord.js')).resolve('@discordjs/rest');
  const undici = createRequire(rest)('undici') as UndiciOfRest;
  return new undici.Agent();
}
