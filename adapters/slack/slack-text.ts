/**
 * Slack's wire text is not plain text: `&`, `<` and `>` arrive escaped and links, mentions and
 * channels arrive as `<…>` tokens. Code pasted into Slack must be turned back into what the user typed.
 */

/** Removes every mention of `botUserId` (`<@U123>` or `<@U123|name>`), then decodes the rest. */
export function stripBotMention(text: string, botUserId: string | undefined): string {
  const withoutBot = botUserId ? text.replace(new RegExp(`<@${escapeRegExp(botUserId)}(\\|[^>]*)?>`, 'g'), '') : text;
  return decodeSlackText(withoutBot).trim();
}

/** True when the text mentions `botUserId`. */
export function mentionsBot(text: string | undefined, botUserId: string | undefined): boolean {
  if (!text || !botUserId) return false;
  return new RegExp(`<@${escapeRegExp(botUserId)}(\\|[^>]*)?>`).test(text);
}

/**
 * Turns Slack tokens back into text: `<url|label>` → label (Slack auto-links names like `data.py`),
 * `<url>` → url, `<@U1>` → `@U1`, `<#C1|general>` → `#general`, `<!here>` → `@here`; then unescapes entities.
 */
export function decodeSlackText(text: string): string {
  const tokens = text.replace(/<([^<>]*)>/g, (_m, inner: string) => {
    const [target = '', label] = inner.split('|', 2);
    if (target.startsWith('@')) return label ? `@${label}` : target;
    if (target.startsWith('#')) return label ? `#${label}` : target;
    if (target.startsWith('!')) return `@${(label ?? target.slice(1)).split('^')[0]}`;
    return label ?? target.replace(/^mailto:/, '');
  });
  return tokens.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Escapes text for Slack mrkdwn, where `&`, `<` and `>` are control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Converts the model's Markdown to Slack mrkdwn: `**bold**` → `*bold*`, `[t](url)` → `<url|t>`,
 * headings → bold lines. Fenced and inline code are only escaped, never rewritten. A user mention (`<@U0123>`,
 * as the Slack profile names people) stays one, so Slack shows the person's name; any other `<…>` is escaped.
 */
export function markdownToMrkdwn(markdown: string): string {
  const parts = markdown.split(/(```[\s\S]*?(?:```|$)|`[^`\n]+`)/g);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return escapeMrkdwn(part.replace(/^```[\w+-]*\n/, '```\n'));
      return escapeMrkdwn(part)
        .replace(/&lt;@([UW][A-Z0-9]{2,20})&gt;/g, '<@$1>')
        .replace(/^#{1,6}\s+(.+)$/gm, '*$1*')
        .replace(/\*\*(.+?)\*\*/g, '*$1*')
        .replace(/__(.+?)__/g, '*$1*')
        .replace(/~~(.+?)~~/g, '~$1~')
        .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, '<$2|$1>')
        .replace(/^(\s*)[-*]\s+/gm, '$1• ');
    })
    .join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
