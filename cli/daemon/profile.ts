import type { PlatformProfile } from '../../src/ports/platform-profile.js';
import { LIST_REPLY_BOUNDS } from '../../src/replies/reply-bounds.js';

/**
 * `threadlab exec|chat` as the core sees it: commands are options, except `/export` and `/usage`, which
 * `threadlab chat` takes typed (it has no option for them).
 */
export const cliProfile: PlatformProfile = {
  commandNames: {
    run: 'threadlab exec',
    reset: 'threadlab chat --reset',
    files: 'threadlab chat --files',
    help: 'threadlab --help',
    export: 'threadlab chat --thread KEY --out DIR /export',
    usage: 'threadlab chat --thread KEY /usage',
  },
  commandTyping: { also: { '/export': 'export', '/usage': 'usage' } },
  // The terminal shows files as a list and writes them out: more per reply than a chat.
  replyBounds: { ...LIST_REPLY_BOUNDS, maxFiles: 100 },
  maxMessageChars: Number.MAX_SAFE_INTEGER,
  mention: (user) => user.name ?? user.id,
};
