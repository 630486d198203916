import { describe, expect, it } from 'vitest';
import { parseIp } from '../../../src/egress/address.js';
import { parseHost } from '../../../src/egress/host.js';
import { EgressPolicy, parseAllowlist } from '../../../src/egress/policy.js';

const policy = (text: string) => new EgressPolicy(parseAllowlist(text));
const host = (text: string) => parseHost(text)!;

describe('egress allowlist', () => {
  it('allows a bare host on ports 80 and 443 only', () => {
    const p = policy('pypi.org');
    expect(p.allows(host('pypi.org'), 443)).toBe(true);
    expect(p.allows(host('PyPI.org.'), 80)).toBe(true);
    expect(p.allows(host('pypi.org'), 8080)).toBe(false);
    expect(p.allows(host('evil-pypi.org'), 443)).toBe(false);
    expect(p.allows(host('x.pypi.org'), 443)).toBe(false);
  });

  it('allows subdomains with *.domain, not the domain itself', () => {
    const p = policy('*.example.org');
    expect(p.allows(host('api.example.org'), 443)).toBe(true);
    expect(p.allows(host('a.b.example.org'), 443)).toBe(true);
    expect(p.allows(host('example.org'), 443)).toBe(false);
    expect(p.allows(host('badexample.org'), 443)).toBe(false);
  });

  it('honours ports, including host:*', () => {
    const p = policy('db.internal:5432, cache.internal:*');
    expect(p.allows(host('db.internal'), 5432)).toBe(true);
    expect(p.allows(host('db.internal'), 443)).toBe(false);
    expect(p.allows(host('cache.internal'), 6379)).toBe(true);
  });

  it('matches IP literals only against IP and CIDR entries (v4 and v6)', () => {
    const p = policy('10.0.0.0/8:8080, [fd00::/8]:443, 2001:db8::1, example.org');
    expect(p.allows(host('10.2.3.4'), 8080)).toBe(true);
    expect(p.allows(host('10.2.3.4'), 80)).toBe(false);
    expect(p.allows(host('fd00::5'), 443)).toBe(true);
    expect(p.allows(host('2001:db8::1'), 80)).toBe(true);
    expect(p.allows(host('93.184.216.34'), 443)).toBe(false);
  });

  it('lifts address refusals only for explicit IP/CIDR entries on their ports', () => {
    const p = policy('*, localhost, 127.0.0.1:9000, 10.0.0.0/8');
    expect(p.lists(parseIp('127.0.0.1')!, 9000)).toBe(true);
    expect(p.lists(parseIp('127.0.0.1')!, 80)).toBe(false);
    expect(p.lists(parseIp('::ffff:127.0.0.1')!, 9000)).toBe(true);
    expect(p.lists(parseIp('10.1.2.3')!, 443)).toBe(true);
    expect(p.lists(parseIp('169.254.169.254')!, 80)).toBe(false);
  });

  it('refuses malformed entries, naming them', () => {
    expect(() => parseAllowlist('')).toThrow(/lists no destination/);
    expect(() => parseAllowlist(' , ')).toThrow(/lists no destination/);
    expect(() => parseAllowlist('pypi.org, ex ample.org')).toThrow(/"ex ample.org"/);
    expect(() => parseAllowlist('pypi.org:0')).toThrow(/"pypi.org:0": the port/);
    expect(() => parseAllowlist('pypi.org:99999')).toThrow(/port/);
    expect(() => parseAllowlist('*.')).toThrow(/not a domain/);
    expect(() => parseAllowlist('[::1')).toThrow(/brackets/);
    expect(() => parseAllowlist('10.0.0.0/40')).toThrow(/"10.0.0.0\/40"/);
    expect(() => parseAllowlist('http://pypi.org')).toThrow(/http:\/\/pypi.org/);
  });

  it('describes the entries as written', () => {
    expect(policy(' PyPI.org , files.pythonhosted.org:443 ').describe()).toEqual([
      'pypi.org',
      'files.pythonhosted.org:443',
    ]);
  });
});
