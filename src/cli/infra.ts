import Docker from 'dockerode';
import { Redis } from 'ioredis';

/** A dockerode client for DOCKER_HOST (unix://, tcp://, ssh://) or the local socket. */
export function createDocker(dockerHost?: string): Docker {
  if (!dockerHost) return new Docker();
  const url = new URL(dockerHost);
  if (url.protocol === 'unix:') return new Docker({ socketPath: url.pathname });
  if (url.protocol === 'ssh:')
    return new Docker({
      protocol: 'ssh',
      host: url.hostname,
      port: Number(url.port || 22),
      username: url.username || undefined,
    });
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return new Docker({ protocol, host: url.hostname, port: Number(url.port || 2375) });
}

/** PINGs Redis once, giving up after 3 s. */
export async function pingRedis(url: string): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const answer = await client.ping();
    if (answer !== 'PONG') throw new Error(`unexpected answer ${answer}`);
  } finally {
    client.disconnect();
  }
}
