import { defineConfig } from 'vitest/config';
import { runscAvailability } from './test/setup/runtimes.js';

/**
 * The sandbox files whose outcome depends on the OCI runtime (isolation, limits, the attack probes, the
 * Sandbox contract, execution and crash recovery): `integration` runs them under runc, and
 * `integration-runsc` runs them again under gVisor when the engine has runsc registered.
 */
const RUNTIME_SENSITIVE = [
  'test/integration/sandbox/isolation.test.ts',
  'test/integration/sandbox/execution.test.ts',
  'test/integration/sandbox/contract.test.ts',
  'test/integration/sandbox/resilience.test.ts',
  'test/integration/sandbox/supervisor*.test.ts',
  'test/integration/sandbox/durable-state.test.ts',
  'test/integration/sandbox/egress-relay.test.ts',
  'test/integration/sandbox/egress.test.ts',
  'test/integration/sandbox/languages*.test.ts',
  'test/integration/replies/previews.test.ts',
];
const RUNTIME_TEST = 'test/integration/sandbox/runtime.test.ts';

/**
 * A test in a RUNTIME_SENSITIVE file that checks the driver's own logic (state files, display protocol,
 * the host copy of files, what the image lists), whatever runs the container, says so with
 * `{ tags: ['runtime-independent'] }`: it runs under runc only. Isolation, limits and attack probes
 * never carry it.
 */
const RUNTIME_INDEPENDENT = 'runtime-independent';
const runtimeIndependent = (underRunsc: boolean) => [
  {
    name: RUNTIME_INDEPENDENT,
    description: 'Does not depend on the OCI runtime: runs under runc only, skipped by integration-runsc.',
    ...(underRunsc ? { skip: true } : {}),
  },
];

// unit: no network, Docker or Redis. integration: the real Docker engine and Redis.
// e2e: the real Slack, Discord, OpenAI client libraries and a browser against local fakes.
export default defineConfig(async () => {
  const runsc = await runscAvailability();
  // Never silent: without runsc the project still runs runtime.test.ts, whose gVisor tests are reported
  // as skipped with this reason, and the reason is printed once here.
  if (!runsc.registered)
    process.stderr.write(`[integration-runsc] sandbox suite under gVisor skipped: ${runsc.reason}\n`);
  return {
    test: {
      // The default output, then each project's wall time and the slowest files.
      reporters: ['default', './test/setup/timing-reporter.ts'],
      projects: [
        {
          test: {
            name: 'unit',
            include: [
              'test/unit/**/*.test.ts',
              'src/**/*.test.ts',
              'cli/**/*.test.ts',
              'adapters/**/*.test.ts',
              'sandbox/**/*.test.ts',
            ],
            testTimeout: 10_000,
          },
        },
        {
          test: {
            name: 'integration',
            include: ['test/integration/**/*.test.ts'],
            exclude: [RUNTIME_TEST],
            tags: runtimeIndependent(false),
            globalSetup: ['test/setup/global-setup.ts'],
            env: { THREADLAB_TEST_SANDBOX_RUNTIME: 'runc' },
            testTimeout: 120_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            name: 'integration-runsc',
            include: runsc.registered ? [RUNTIME_TEST, ...RUNTIME_SENSITIVE] : [RUNTIME_TEST],
            tags: runtimeIndependent(true),
            globalSetup: ['test/setup/global-setup.ts'],
            env: {
              THREADLAB_TEST_SANDBOX_RUNTIME: 'runsc',
              THREADLAB_TEST_RUNSC_SKIPPED: runsc.registered ? '' : (runsc.reason ?? 'not registered'),
            },
            testTimeout: 180_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
        {
          test: {
            name: 'e2e',
            include: ['test/e2e/**/*.test.ts'],
            globalSetup: ['test/setup/global-setup.ts'],
            testTimeout: 180_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
      ],
    },
  };
});
