import { describe, expect, it } from 'vitest';
import { pickMime, toInboundMessage } from '../../../adapters/web/map-request.js';
import { mimeFromName } from '../../../src/domain/mime.js';
import { intentOf } from '../../../src/core/read-intent.js';
import { safeFileName } from '../../../src/domain/file-names.js';

describe('toInboundMessage', () => {
  it('maps a stored user message to the InboundMessage of its thread', () => {
    const msg = toInboundMessage({
      messageId: 'm1',
      threadId: 't1',
      text: '```python\nprint(1)\n```',
      attachments: [{ id: 'u1', name: 'sales.csv', mime: 'text/csv', bytes: 8, url: '/api/files/u1' }],
      receivedAtMs: 1234,
    });
    expect(msg).toEqual({
      id: 'web-m1',
      thread: { platform: 'web', workspace: 'local', channel: 'web', thread: 't1' },
      user: { id: 'web-user', name: 'you' },
      text: '```python\nprint(1)\n```',
      attachments: [{ id: 'u1', name: 'sales.csv', mime: 'text/csv', bytes: 8, url: 'web-upload:u1' }],
      receivedAtMs: 1234,
      replyContext: { threadId: 't1', messageId: 'm1' },
    });
    expect(msg.command).toBeUndefined();
  });

  it('turns /reset and the reset button into a reset command', () => {
    const base = { messageId: 'm', threadId: 't', attachments: [], receivedAtMs: 0 };
    // The button is the web chat's own command; typed text is read by the core's intentOf.
    const typed = (text: string) => intentOf(toInboundMessage({ ...base, text }));
    expect(typed('/reset')).toEqual({ kind: 'reset' });
    expect(toInboundMessage({ ...base, text: '', command: { name: 'reset' } }).command).toEqual({ name: 'reset' });
    expect(typed(' /FILES ')).toEqual({ kind: 'files' });
    expect(typed('/reset please')).toEqual({ kind: 'ask', text: '/reset please' });
    expect(typed('reset')).toEqual({ kind: 'ask', text: 'reset' });
  });
});

describe('file names', () => {
  it('strips directories and control characters, guesses MIME types', () => {
    expect(safeFileName('C:\\Users\\me\\data.csv')).toBe('data.csv');
    expect(safeFileName('../../.bashrc')).toBe('bashrc');
    expect(safeFileName('a\u0000b\n.txt')).toBe('ab.txt');
    expect(safeFileName('...', 'upload')).toBe('upload');
    expect(mimeFromName('Report.XLSX')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(mimeFromName('noext')).toBe('application/octet-stream');
  });

  it('keeps a declared MIME type only when it is a well-formed type, as it becomes a response header', () => {
    expect(pickMime('data.bin', 'Application/X-Thing; charset=utf-8')).toBe('application/x-thing');
    expect(pickMime('data.bin', 'text/html\r\nx-evil: 1')).toBe('application/octet-stream');
    expect(pickMime('data.bin', 'not a type')).toBe('application/octet-stream');
    expect(pickMime('data.bin', undefined)).toBe('application/octet-stream');
    expect(pickMime('sales.csv', 'application/vnd.ms-excel')).toBe('text/csv');
  });
});
