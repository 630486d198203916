import { isIP } from 'node:net';

/**
 * IP addresses as bytes, CIDR blocks, and the address classes the egress gateway refuses unless an
 * operator lists them: the host's loopback, link-local (cloud metadata), private, unspecified,
 * multicast and reserved ranges, in IPv4, IPv6, and IPv6 forms that embed an IPv4 address.
 */

/** An IP address: 4 bytes for IPv4, 16 for IPv6. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is kept as IPv4. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  /** The canonical text: dotted IPv4, or IPv6 as Node prints it. */
  readonly text: string;
}

/** A block of addresses: `network` with its first `prefixBits` bits significant. */
export interface Cidr {
  readonly network: IpAddress;
  readonly prefixBits: number;
}

/** Why an address is refused unless listed explicitly. */
export type AddressClass = 'loopback' | 'link-local' | 'private' | 'unspecified' | 'multicast' | 'reserved';

function parseV4(text: string): Uint8Array | undefined {
  if (isIP(text) !== 4) return undefined;
  return Uint8Array.from(text.split('.').map(Number));
}

function parseV6(text: string): Uint8Array | undefined {
  // Zone ids (fe80::1%eth0) name an interface of the bot's host: never a destination.
  if (text.includes('%') || isIP(text) !== 6) return undefined;
  let body = text;
  const lastColon = body.lastIndexOf(':');
  const v4 = parseV4(body.slice(lastColon + 1));
  if (v4) {
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    body = `${body.slice(0, lastColon + 1)}${hex(v4[0]!, v4[1]!)}:${hex(v4[2]!, v4[3]!)}`;
  }
  const [head = '', rest] = body.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length;
  const words = [...left, ...new Array<string>(zeros).fill('0'), ...right].map((group) => parseInt(group, 16));
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

function v4Text(bytes: Uint8Array): string {
  return Array.from(bytes).join('.');
}

function v6Text(bytes: Uint8Array): string {
  const words = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  // Node normalises the longest run of zero groups; URL does the same and is available everywhere.
  return new URL(`http://[${words.join(':')}]/`).hostname.slice(1, -1);
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}

/** Parses an IPv4 or IPv6 literal (no brackets, no zone id); `undefined` when `text` is not one. */
export function parseIp(text: string): IpAddress | undefined {
  const v4 = parseV4(text);
  if (v4) return { family: 4, bytes: v4, text: v4Text(v4) };
  const v6 = parseV6(text);
  if (!v6) return undefined;
  // ::ffff:a.b.c.d reaches the IPv4 host a.b.c.d: treat it as that address everywhere.
  if (startsWith(v6, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) {
    const inner = v6.slice(12);
    return { family: 4, bytes: inner, text: v4Text(inner) };
  }
  return { family: 6, bytes: v6, text: v6Text(v6) };
}

/** Parses `address/bits` (or a bare address, a block of one); `undefined` when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const [addressText = '', bitsText, extra] = text.split('/');
  if (extra !== undefined) return undefined;
  const network = parseIp(addressText);
  if (!network) return undefined;
  const max = network.family === 4 ? 32 : 128;
  if (bitsText === undefined) return { network, prefixBits: max };
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  let prefixBits = Number(bitsText);
  // ::ffff:10.0.0.0/104 is the IPv4 block 10.0.0.0/8.
  if (network.family === 4 && parseV4(addressText) === undefined) prefixBits -= 96;
  if (prefixBits < 0 || prefixBits > max) return undefined;
  return { network, prefixBits };
}

/** Whether `address` lies in `block`. */
export function cidrContains(block: Cidr, address: IpAddress): boolean {
  if (block.network.family !== address.family) return false;
  const full = Math.floor(block.prefixBits / 8);
  for (let i = 0; i < full; i++) if (block.network.bytes[i] !== address.bytes[i]) return false;
  const bits = block.prefixBits % 8;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return ((block.network.bytes[full]! ^ address.bytes[full]!) & mask) === 0;
}

const table = (rows: Array<[string, AddressClass]>) => rows.map(([cidr, kind]) => ({ block: parseCidr(cidr)!, kind }));

const REFUSED_V4 = table([
  ['0.0.0.0/8', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['198.18.0.0/15', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

const REFUSED_V6 = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'],
  ['fc00::/7', 'private'],
  ['64:ff9b:1::/48', 'private'],
  ['ff00::/8', 'multicast'],
]);

/** IPv6 forms that carry an IPv4 address (IPv4-compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedV4(address: IpAddress): IpAddress | undefined {
  const b = address.bytes;
  let inner: Uint8Array | undefined;
  if (startsWith(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])) inner = b.slice(12);
  else if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) inner = b.slice(12);
  else if (startsWith(b, [0x20, 0x02])) inner = b.slice(2, 6);
  return inner ? { family: 4, bytes: inner, text: v4Text(inner) } : undefined;
}

/** The class that makes `address` refused unless listed, or `undefined` for an ordinary public address. */
export function classifyAddress(address: IpAddress): AddressClass | undefined {
  if (address.family === 4) return REFUSED_V4.find((row) => cidrContains(row.block, address))?.kind;
  const own = REFUSED_V6.find((row) => cidrContains(row.block, address))?.kind;
  if (own) return own;
  const inner = embeddedV4(address);
  return inner ? classifyAddress(inner) : undefined;
}
