import { describe, expect, it } from 'vitest';
import { benchEgressOverhead } from '../../../cli/bench/egress-overhead.js';

describe('egress gateway: overhead', () => {
  it('measures a request through the gateway against a direct loopback request', async () => {
    const rows = await benchEgressOverhead({ requests: 100 });
    const table = rows.map(
      (r) =>
        `${r.kind.padEnd(18)} direct ${r.directMs.toFixed(2)} ms   gateway ${r.gatewayMs.toFixed(2)} ms   overhead ${r.overheadMs.toFixed(2)} ms`,
    );
    console.log(`egress overhead, median of 100 on loopback:\n${table.join('\n')}`);
    expect(rows.map((r) => r.kind)).toEqual(['absolute-form GET', 'CONNECT + GET']);
    for (const row of rows) {
      expect(row.directMs).toBeGreaterThan(0);
      // Through the gateway is two connections and a proxy hop: it cannot be faster than direct.
      expect(row.gatewayMs).toBeGreaterThan(row.directMs);
    }
  });
});
