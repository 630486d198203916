import { Redis } from 'ioredis';

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
