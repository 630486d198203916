import { describe, expect, it } from 'vitest';
import { parseHead } from '../../../src/egress/head.js';

describe('egress request head', () => {
  it('reads the request line and headers', () => {
    expect(parseHead('CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\nProxy-Authorization: x', 100)).toEqual({
      method: 'CONNECT',
      target: 'pypi.org:443',
      version: '1.1',
      headers: [
        ['Host', 'pypi.org:443'],
        ['Proxy-Authorization', 'x'],
      ],
    });
  });

  it('refuses what could smuggle a request past the checks', () => {
    expect(parseHead('GET http://a/ HTTP/1.1\r\n folded: x', 100)).toMatch(/malformed header/);
    expect(parseHead('GET http://a/ HTTP/1.1\r\nX: a\rb', 100)).toMatch(/malformed header/);
    expect(parseHead('GET http://a/ HTTP/1.1\r\nBad Name: x', 100)).toMatch(/malformed header/);
    expect(parseHead('GET http://a/ HTTP/2.0', 100)).toMatch(/request line/);
    expect(parseHead('get http://a/ HTTP/1.1', 100)).toMatch(/request line/);
    expect(parseHead('GET  http://a/ HTTP/1.1', 100)).toMatch(/request line/);
  });

  it('limits the number of header lines', () => {
    const head = `GET http://a/ HTTP/1.1\r\n${Array.from({ length: 5 }, (_, i) => `X-${i}: y`).join('\r\n')}`;
    expect(parseHead(head, 4)).toBe('more than 4 header lines');
    expect(typeof parseHead(head, 5)).toBe('object');
  });
});
