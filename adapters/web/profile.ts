import type { PlatformProfile } from '../../src/ports/platform-profile.js';
import { LIST_REPLY_BOUNDS } from '../../src/replies/reply-bounds.js';

/**
 * The local web chat as the core sees it: commands are typed with a slash (`/reset`) or pressed as buttons,
 * files are shown as a list, and a message's text is not split.
 */
export const webProfile: PlatformProfile = {
  commandNames: {
    run: '```python …```',
    reset: 'Reset',
    files: 'Files',
    help: 'Help',
    export: '/export',
    usage: '/usage',
  },
  commandTyping: { prefix: '/', schedule: ['/schedule', 'schedule'] },
  scheduleCommand: '/schedule',
  replyBounds: LIST_REPLY_BOUNDS,
  maxMessageChars: Number.MAX_SAFE_INTEGER,
  // The web chat has no mentions: the display name it has (the local user is "you").
  mention: (user) => user.name ?? user.id,
};
