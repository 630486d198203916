import { readFileSync } from 'node:fs';

/** `/proc/net/tcp` writes IPv4 addresses as one little-endian 32-bit word in hex. */
function ipv4(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  return [bytes[3], bytes[2], bytes[1], bytes[0]].join('.');
}

/**
 * The local addresses that listen on TCP `port` on this machine, read from the kernel's socket tables:
 * `127.0.0.1`, `0.0.0.0`, `::` (all interfaces, IPv6 and usually IPv4 too), or raw hex for other IPv6.
 */
export function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let table: string;
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this kernel
    }
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [address, hexPort] = local.split(':') as [string, string];
      if (parseInt(hexPort, 16) !== port) continue;
      if (!v6) found.push(ipv4(address));
      else found.push(/^0+$/.test(address) ? '::' : address);
    }
  }
  return found;
}
