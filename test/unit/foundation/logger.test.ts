import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('redacts configured secrets wherever they appear, and token-shaped strings', () => {
    const { lines, destination } = capture();
    const log = createLogger({ secrets: ['super-secret-key-123'], destination });
    log.info(
      { token: 'abc', nested: { apiKey: 'k' }, note: 'key super-secret-key-123 leaked' },
      'using xoxb-1111-2222-abcd',
    );
    log.error({ err: new Error('auth failed for super-secret-key-123') }, 'boom');
    const text = lines.join('');
    expect(text).not.toContain('super-secret-key-123');
    expect(text).not.toContain('xoxb-1111-2222-abcd');
    expect(text).not.toContain('"abc"');
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(5);
  });

  it('child loggers carry their context', () => {
    const { lines, destination } = capture();
    createLogger({ destination }).child({ platform: 'slack', thread: 't1' }).info('hello');
    expect(JSON.parse(lines[0]!)).toMatchObject({ platform: 'slack', thread: 't1', msg: 'hello' });
  });
});

describe('logger, errors and URLs', () => {
  it('logs the cause chain of an error, so a converted error still shows the bug', () => {
    const { lines, destination } = capture();
    const bug = new TypeError('cannot read properties of undefined (reading "x")');
    const wrapped = new Error('Unexpected failure: cannot read properties', { cause: bug });
    createLogger({ destination }).error({ err: wrapped }, 'job failed');
    const entry = JSON.parse(lines[0]!) as { err: { cause?: { type: string; message: string; stack: string } } };
    expect(entry.err.cause?.type).toBe('TypeError');
    expect(entry.err.cause?.stack).toContain('logger.test.ts');
  });

  it('redacts credentials inside URLs in any message', () => {
    const { lines, destination } = capture();
    createLogger({ destination }).warn({ url: 'http://user:pa55word@127.0.0.1:1/v1?key=abcdef' }, 'connect failed');
    const text = lines.join('');
    expect(text).not.toContain('pa55word');
    expect(text).not.toContain('abcdef');
  });
});
