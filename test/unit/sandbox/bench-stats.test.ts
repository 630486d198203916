import { describe, expect, it } from 'vitest';
import { stats } from '../../../cli/bench/sandbox-bench.js';

describe('bench stats', () => {
  it('computes nearest-rank percentiles', () => {
    expect(stats([5, 1, 3, 2, 4])).toEqual({ samples: 5, p50Ms: 3, p95Ms: 5 });
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(stats(hundred)).toMatchObject({ p50Ms: 50, p95Ms: 95 });
  });
});
