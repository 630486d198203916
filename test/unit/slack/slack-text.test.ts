import { describe, expect, it } from 'vitest';
import { decodeSlackText, markdownToMrkdwn, mentionsBot, stripBotMention } from '../../../adapters/slack/slack-text.js';

describe('Slack text', () => {
  it('strips every mention of the bot, with or without a label, and keeps other users', () => {
    expect(stripBotMention('<@UBOT> hi <@UBOT|threadlab> and <@U2>', 'UBOT')).toBe('hi  and @U2');
    expect(mentionsBot('hey <@UBOT|x>', 'UBOT')).toBe(true);
    expect(mentionsBot('hey <@UOTHER>', 'UBOT')).toBe(false);
  });

  it('decodes entities and links back into what the user typed', () => {
    expect(decodeSlackText('if a &lt; b &amp;&amp; c &gt; d')).toBe('if a < b && c > d');
    expect(decodeSlackText('open <http://data.py|data.py> or <https://example.com>')).toBe(
      'open data.py or https://example.com',
    );
    expect(decodeSlackText('in <#C123|general> for <!here>')).toBe('in #general for @here');
    expect(decodeSlackText('mail <mailto:a@b.c|a@b.c>')).toBe('mail a@b.c');
  });

  it('converts Markdown to mrkdwn, escaping control characters but leaving code alone', () => {
    expect(markdownToMrkdwn('## Result\n**bold** and [docs](https://x.io) & 1 < 2')).toBe(
      '*Result*\n*bold* and <https://x.io|docs> &amp; 1 &lt; 2',
    );
    expect(markdownToMrkdwn('```python\nprint(**kw) if a<b\n```')).toBe('```\nprint(**kw) if a&lt;b\n```');
    // A person named by the Slack profile stays a mention; broadcasts, links and mentions in code do not.
    expect(markdownToMrkdwn('_Scheduled run (every 5s) for <@U0FRANK01>._ <!channel> <@U1|x> `<@U0FRANK01>`')).toBe(
      '_Scheduled run (every 5s) for <@U0FRANK01>._ &lt;!channel&gt; &lt;@U1|x&gt; `&lt;@U0FRANK01&gt;`',
    );
    expect(markdownToMrkdwn('- one\n- two')).toBe('• one\n• two');
  });
});
