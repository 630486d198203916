import { describe, expect, it } from 'vitest';
import { connectionCaps } from '../../../adapters/web/connection-caps.js';
import { readOpenFileLimit } from '../../../adapters/web/open-file-limit.js';

const configured = { maxConnections: 1500, maxStreams: 1000 };

describe('web chat connection caps from the open-file limit', () => {
  it('under 1,024 descriptors: streams, then requests, then refusals, then 256 for everything else', () => {
    const caps = connectionCaps({ ...configured, openFiles: { soft: 1024, hard: 1024 } });
    expect(caps).toEqual({ maxConnections: 704, refusalConnections: 64, maxStreams: 640 });
    expect(caps.maxConnections + caps.refusalConnections).toBeLessThanOrEqual(1024 - 256);
  });

  it('the configured caps stand when they fit, or when no limit is known', () => {
    const fits = { maxConnections: 1500, refusalConnections: 64, maxStreams: 1000 };
    expect(connectionCaps({ ...configured, openFiles: { soft: 4096, hard: 4096 } })).toEqual(fits);
    expect(connectionCaps({ ...configured, openFiles: undefined })).toEqual(fits);
    expect(connectionCaps({ ...configured, openFiles: { soft: Infinity, hard: Infinity } })).toEqual(fits);
  });

  it('streams never take every connection, even when configured to', () => {
    const caps = connectionCaps({ maxConnections: 100, maxStreams: 100, openFiles: undefined });
    expect(caps.maxStreams).toBeLessThan(caps.maxConnections);
  });

  it('reads this process limit', () => {
    const limit = readOpenFileLimit();
    expect(limit?.soft).toBeGreaterThan(0);
    expect(limit!.hard).toBeGreaterThanOrEqual(limit!.soft);
  });
});
