import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take longest (project and path, as the timing summary at the end of `npm test` lists
 * them), longest first. A clean clone has no vitest cache of durations, so without this list the
 * order is by project, then by file size, and a two-minute file that happens to start last is a
 * two-minute tail while the other workers sit idle. Update it from the timing summary when it drifts.
 */
export const SLOW_FILES: readonly string[] = [
  // Seconds alone / three files at a time on the loaded 2-core machine (November 2026).
  'integration:test/integration/sandbox/bench.test.ts', // 121 / 276-370: runc and runsc benchmarks
  'e2e:test/e2e/roles/failover.test.ts', // 110 / 130-150: 6-20 s runs killed mid-way, re-delivery
  'e2e:test/e2e/model-servers/shipped.test.ts', // 57 / 120-150: 11 servers x (chat + start) at once
  'e2e:test/e2e/roles/schedules-redis.test.ts', // 46-85 three at a time: restarts, two workers
  'integration-runsc:test/integration/sandbox/contract.test.ts', // 49 / 108
  'integration:test/integration/cli/daemon-config.test.ts', // 49 / 100-164: daemons replaced
  'integration:test/integration/sandbox/durable-state.test.ts', // 80-115 three at a time
  'integration-runsc:test/integration/sandbox/supervisor.test.ts', // 37 / 77-89
  'integration-runsc:test/integration/sandbox/resilience.test.ts', // 39 / 66-84
  'e2e:test/e2e/roles/split-roles.test.ts', // 42-86 three at a time
  'e2e:test/e2e/shipped/schedules.test.ts', // 37-45 three at a time
  'e2e:test/e2e/shipped/verified-answers.test.ts', // 37-41 three at a time
  'integration:test/integration/sandbox/lean-kernels.test.ts', // 35 three at a time: idle waits
  'integration:test/integration/cli/purge.test.ts', // 53-76 three at a time
  'integration:test/integration/cli/exec-chat.test.ts', // 50-102 three at a time
  'integration:test/integration/sandbox/contract.test.ts', // 47-70 three at a time
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
