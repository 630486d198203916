import { describe, expect, it } from 'vitest';
import { cidrContains, classifyAddress, parseCidr, parseIp } from '../../../src/egress/address.js';

const kind = (text: string) => {
  const address = parseIp(text);
  if (!address) throw new Error(`not an address: ${text}`);
  return classifyAddress(address);
};

describe('egress addresses', () => {
  it('parses IPv4 and IPv6 literals and rejects everything else', () => {
    expect(parseIp('93.184.216.34')?.family).toBe(4);
    expect(parseIp('2001:db8::1')?.text).toBe('2001:db8::1');
    expect(parseIp('2001:0db8:0000:0000:0000:0000:0000:0001')?.text).toBe('2001:db8::1');
    for (const bad of ['010.0.0.1', '1.2.3', '2130706433', '0x7f.1', 'fe80::1%eth0', 'example.org', '::g', ''])
      expect(parseIp(bad), bad).toBeUndefined();
  });

  it('reads IPv4-mapped IPv6 as the IPv4 address it reaches', () => {
    expect(parseIp('::ffff:127.0.0.1')).toMatchObject({ family: 4, text: '127.0.0.1' });
    expect(parseIp('::ffff:7f00:1')).toMatchObject({ family: 4, text: '127.0.0.1' });
    expect(parseIp('0:0:0:0:0:ffff:a9fe:a9fe')).toMatchObject({ family: 4, text: '169.254.169.254' });
  });

  it('refuses loopback, link-local, private, unspecified, multicast and reserved ranges', () => {
    expect(kind('127.0.0.1')).toBe('loopback');
    expect(kind('127.255.0.9')).toBe('loopback');
    expect(kind('169.254.169.254')).toBe('link-local');
    expect(kind('10.1.2.3')).toBe('private');
    expect(kind('172.16.0.1')).toBe('private');
    expect(kind('172.31.255.255')).toBe('private');
    expect(kind('192.168.1.1')).toBe('private');
    expect(kind('100.64.0.1')).toBe('private');
    expect(kind('0.0.0.0')).toBe('unspecified');
    expect(kind('224.0.0.1')).toBe('multicast');
    expect(kind('255.255.255.255')).toBe('reserved');
    expect(kind('::')).toBe('unspecified');
    expect(kind('::1')).toBe('loopback');
    expect(kind('fe80::1')).toBe('link-local');
    expect(kind('febf::1')).toBe('link-local');
    expect(kind('fc00::1')).toBe('private');
    expect(kind('fd12:3456::1')).toBe('private');
    expect(kind('ff02::1')).toBe('multicast');
  });

  it('refuses IPv6 forms that embed a refused IPv4 address', () => {
    expect(kind('::ffff:10.0.0.1')).toBe('private');
    expect(kind('::ffff:169.254.169.254')).toBe('link-local');
    expect(kind('::127.0.0.1')).toBe('loopback');
    expect(kind('64:ff9b::a9fe:a9fe')).toBe('link-local');
    expect(kind('2002:7f00:1::1')).toBe('loopback');
    expect(kind('2002:5db8:d822::1')).toBeUndefined();
  });

  it('lets ordinary public addresses through', () => {
    for (const ok of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(kind(ok), ok).toBeUndefined();
  });

  it('matches CIDR blocks bit by bit, within one family', () => {
    const block = parseCidr('172.16.0.0/12')!;
    expect(cidrContains(block, parseIp('172.31.1.1')!)).toBe(true);
    expect(cidrContains(block, parseIp('172.32.0.0')!)).toBe(false);
    expect(cidrContains(parseCidr('10.0.0.0/8')!, parseIp('::ffff:10.9.9.9')!)).toBe(true);
    expect(cidrContains(parseCidr('::ffff:10.0.0.0/104')!, parseIp('10.9.9.9')!)).toBe(true);
    expect(cidrContains(parseCidr('fd00::/8')!, parseIp('fd12::1')!)).toBe(true);
    expect(cidrContains(parseCidr('fd00::/8')!, parseIp('10.0.0.1')!)).toBe(false);
    expect(cidrContains(parseCidr('127.0.0.1')!, parseIp('127.0.0.2')!)).toBe(false);
    for (const bad of ['10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8/1', 'fd00::/129', 'host/8'])
      expect(parseCidr(bad), bad).toBeUndefined();
  });
});
