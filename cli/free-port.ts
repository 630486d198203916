import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A free loopback TCP port for a server another process will bind (a private redis-server, a spawned
 * `threadlab start`). Asking the kernel for port 0 and closing it is a race: the port is handed out again,
 * and an outgoing connection on the machine can take it before the server binds. So the port is picked
 * below the kernel's ephemeral range (`ip_local_port_range`), which outgoing connections never use, and
 * checked by binding it. Callers that run side by side (test workers) pass disjoint slices of that range.
 */
export interface PortSlice {
  /** 0-based slice index. */
  index: number;
  /** How many slices the range is cut into. */
  count: number;
}

const LOWEST = 15_000;
const ATTEMPTS = 200;

/** The first port of the ephemeral range (32768 when it cannot be read). */
export function ephemeralLow(path = '/proc/sys/net/ipv4/ip_local_port_range'): number {
  try {
    const low = Number(readFileSync(path, 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 && low <= 65_535 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Resolves true when `port` can be bound on 127.0.0.1 right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Lets the kernel choose (the fallback when the range below the ephemeral one is too small). */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Next candidate per slice, so one caller never hands out the same port twice in a row. */
const cursors = new Map<string, number>();

export async function freePort(slice: PortSlice = { index: 0, count: 1 }): Promise<number> {
  const high = ephemeralLow();
  const count = Math.max(1, Math.floor(slice.count));
  const index = Math.min(count - 1, Math.max(0, Math.floor(slice.index)));
  const width = Math.floor((high - LOWEST) / count);
  if (width < 16) return kernelPort();
  const start = LOWEST + index * width;
  const key = `${index}/${count}`;
  let offset = cursors.get(key) ?? Math.floor(Math.random() * width);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const port = start + (offset % width);
    offset += 1;
    if (await bindable(port)) {
      cursors.set(key, offset % width);
      return port;
    }
  }
  return kernelPort();
}
