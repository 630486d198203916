import { describe, expect, it } from 'vitest';
import { authorize, TOKEN_COOKIE } from '../../../adapters/web/auth.js';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { isThreadlabError } from '../../../src/domain/errors.js';
import { createLogger } from '../../../src/logger.js';

const TOKEN = 'a-long-enough-web-token-1234';
const req = (over: Partial<{ method: string; url: string; headers: Record<string, string> }> = {}) => ({
  method: over.method ?? 'GET',
  url: over.url ?? '/api/threads',
  headers: { host: '192.168.1.5:8787', ...over.headers },
});

describe('web chat authentication', () => {
  it('requires a token when bound off loopback', () => {
    const logger = createLogger({ level: 'silent' });
    let err: unknown;
    try {
      new WebChatAdapter({ host: '0.0.0.0', port: 0, dataDir: '/nonexistent', logger });
    } catch (e) {
      err = e;
    }
    expect(isThreadlabError(err, 'config_invalid')).toBe(true);
    expect((err as Error).message).toContain('THREADLAB_WEB_TOKEN');
    expect(
      () => new WebChatAdapter({ host: '0.0.0.0', port: 0, token: TOKEN, dataDir: '/nonexistent', logger }),
    ).not.toThrow();
    expect(() => new WebChatAdapter({ host: '127.0.0.1', port: 0, dataDir: '/nonexistent', logger })).not.toThrow();
  });

  it('answers 401 without the token, and for a wrong one', () => {
    expect(authorize(req(), { token: TOKEN })).toMatchObject({ ok: false, status: 401 });
    expect(authorize(req({ headers: { authorization: 'Bearer nope' } }), { token: TOKEN })).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(authorize(req({ headers: { cookie: `${TOKEN_COOKIE}=${TOKEN}x` } }), { token: TOKEN })).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(authorize(req({ url: '/api/threads?token=wrong' }), { token: TOKEN })).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('accepts a Bearer header or the cookie', () => {
    expect(authorize(req({ headers: { authorization: `Bearer ${TOKEN}` } }), { token: TOKEN })).toEqual({ ok: true });
    expect(authorize(req({ headers: { cookie: `other=1; ${TOKEN_COOKIE}=${TOKEN}` } }), { token: TOKEN })).toEqual({
      ok: true,
    });
  });

  it('turns ?token= on a page load into an HttpOnly cookie and a redirect without it', () => {
    const decision = authorize(req({ url: `/?token=${TOKEN}&x=1` }), { token: TOKEN });
    expect(decision).toEqual({
      ok: true,
      setCookie: `${TOKEN_COOKIE}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`,
      redirectTo: '/?x=1',
    });
    // never on a state-changing request
    expect(authorize(req({ method: 'POST', url: `/api/threads?token=${TOKEN}` }), { token: TOKEN })).toMatchObject({
      ok: false,
    });
  });

  it('without a token, only accepts loopback Host headers (no DNS rebinding)', () => {
    expect(authorize(req({ headers: { host: '127.0.0.1:8787' } }), {})).toEqual({ ok: true });
    expect(authorize(req({ headers: { host: 'localhost:8787' } }), {})).toEqual({ ok: true });
    expect(authorize(req({ headers: { host: '[::1]:8787' } }), {})).toEqual({ ok: true });
    expect(authorize(req({ headers: { host: 'evil.example:8787' } }), {})).toMatchObject({ ok: false, status: 403 });
  });

  it('refuses cross-origin state changes', () => {
    const post = (origin: string) =>
      authorize(req({ method: 'POST', headers: { host: '127.0.0.1:8787', origin } }), {});
    expect(post('http://127.0.0.1:8787')).toEqual({ ok: true });
    expect(post('http://evil.example')).toMatchObject({ ok: false, status: 403 });
  });
});

describe('authorize on hostile input', () => {
  it('treats a malformed cookie or request path as no token, never throwing', () => {
    const token = 'a-token-of-16-chars-or-more';
    const base = { method: 'GET', headers: { host: '0.0.0.0:8787' } };
    expect(
      authorize({ ...base, url: '/', headers: { ...base.headers, cookie: 'threadlab_token=%E0%A4%A' } }, { token }),
    ).toMatchObject({ ok: false, status: 401 });
    expect(authorize({ ...base, url: '//%zz?token=x' }, { token })).toMatchObject({ ok: false, status: 401 });
    expect(authorize({ ...base, url: '//[' }, { token })).toMatchObject({ ok: false, status: 401 });
  });
});
