import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take longest (project and path, as the timing summary at the end of `npm test` lists
 * them), longest first. A clean clone has no vitest cache of durations, so without this list the
 * order is by project, then by file size, and a two-minute file that happens to start last is a
 * two-minute tail while the other workers sit idle. Update it from the timing summary when it drifts.
 */
export const SLOW_FILES: readonly string[] = [
  'integration:test/integration/sandbox/bench.test.ts', // ~120 s: runc and runsc benchmarks
  'e2e:test/e2e/roles/failover.test.ts', // ~110 s: 12-20 s runs killed mid-way, stalled-job re-delivery
  'e2e:test/e2e/model-servers/shipped.test.ts', // ~60 s alone, 11 servers × (chat + start) at once
  'integration-runsc:test/integration/sandbox/contract.test.ts', // ~50 s under gVisor
  'integration:test/integration/cli/daemon-config.test.ts', // ~50 s: daemons restarted by configuration
  'integration-runsc:test/integration/sandbox/resilience.test.ts', // ~40 s
  'integration-runsc:test/integration/sandbox/supervisor.test.ts', // ~37 s
  'e2e:test/e2e/roles/split-roles.test.ts',
  'e2e:test/e2e/slack/runtime.test.ts',
  'e2e:test/e2e/roles/durable-failover.test.ts',
  'e2e:test/e2e/shipped/all-platforms.test.ts',
  'e2e:test/e2e/shipped/stop-press.test.ts',
];

/**
 * The default order (group order first; failed, then longer files first when vitest has durations
 * cached), except that the files of {@link SLOW_FILES} start before all others of their group, so
 * the long ones overlap the many short ones instead of trailing them.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = SLOW_FILES.indexOf(`${spec.project.name}:${relative(spec.project.config.root, spec.moduleId)}`);
      return index < 0 ? SLOW_FILES.length : index;
    };
    // Array.prototype.sort is stable: files outside the list keep the default order.
    return sorted.sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}
