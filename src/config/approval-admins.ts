import { ThreadlabError } from '../domain/errors.js';

const PLATFORMS = ['slack', 'discord', 'web'];

/**
 * Parses THREADLAB_APPROVAL_ADMINS: a comma-separated list of `platform:userId` (Slack U…, Discord
 * snowflake, web chat user). A platform is named because user ids are only unique within one.
 */
export function parseApprovalAdmins(text: string): string[] {
  const admins = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const admin of admins) {
    const [platform, id] = [admin.slice(0, admin.indexOf(':')), admin.slice(admin.indexOf(':') + 1)];
    if (!PLATFORMS.includes(platform) || !/^[\w.@-]{1,128}$/.test(id)) {
      throw new ThreadlabError(
        'config_invalid',
        `expected platform:userId entries such as slack:U0123ABCD or discord:80351110224678912 (got "${admin}")`,
        { isPolicy: true },
      );
    }
  }
  return admins;
}
