import { describe, expect, it } from 'vitest';
import { findCredential, isHeaderValue, parseCredentialSpecs } from '../../../src/egress/credentials.js';
import { parseHost } from '../../../src/egress/host.js';

describe('egress credentials', () => {
  it('parses host=Header:VARIABLE entries separated by ;', () => {
    expect(
      parseCredentialSpecs('api.example.com=Authorization:EXAMPLE_API_TOKEN; 127.0.0.1:8443=X-Api-Key:LOCAL_KEY;'),
    ).toEqual([
      { host: 'api.example.com', header: 'Authorization', variable: 'EXAMPLE_API_TOKEN' },
      { host: '127.0.0.1', port: 8443, header: 'X-Api-Key', variable: 'LOCAL_KEY' },
    ]);
  });

  it('refuses malformed entries and headers the gateway owns', () => {
    expect(() => parseCredentialSpecs('api.example.com')).toThrow(/host=Header-Name:VARIABLE/);
    expect(() => parseCredentialSpecs('api.example.com=Authorization')).toThrow(/host=Header-Name:VARIABLE/);
    expect(() => parseCredentialSpecs('*.example.com=Authorization:T')).toThrow(/does not start with a host/);
    expect(() => parseCredentialSpecs('a.com=Host:T')).toThrow(/"Host" .* is not a header/);
    expect(() => parseCredentialSpecs('a.com=Proxy-Authorization:T')).toThrow(/not a header/);
    expect(() => parseCredentialSpecs('a.com=Bad Header:T')).toThrow(/not a header/);
    expect(() => parseCredentialSpecs('a.com=Authorization:1BAD')).toThrow(/not an environment variable/);
    expect(() => parseCredentialSpecs('a.com=A:T;A.com.=B:U')).toThrow(/a.com is listed twice/);
  });

  it('matches by host, and by port when the entry names one (443 when the URL names none)', () => {
    const credentials = [
      { host: 'api.example.com', header: 'Authorization', value: 'Bearer any-port' },
      { host: '127.0.0.1', port: 8443, header: 'X-Key', value: 'local' },
    ];
    const find = (host: string, port?: number) => findCredential(credentials, parseHost(host)!, port)?.value;
    expect(find('api.example.com')).toBe('Bearer any-port');
    expect(find('API.example.com', 8443)).toBe('Bearer any-port');
    expect(find('127.0.0.1', 8443)).toBe('local');
    expect(find('127.0.0.1')).toBeUndefined();
    expect(find('other.example.com')).toBeUndefined();
  });

  it('accepts header values without line breaks only', () => {
    expect(isHeaderValue('Bearer abc.def')).toBe(true);
    expect(isHeaderValue('x\r\nHost: evil')).toBe(false);
    expect(isHeaderValue('')).toBe(false);
  });
});
