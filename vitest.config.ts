import { defineConfig } from 'vitest/config';
import { runscAvailability } from './test/setup/runtimes.js';
import SlowFirstSequencer from './test/setup/slow-first-sequencer.js';

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
  'test/integration/sandbox/lean-kernels.test.ts',
  'test/integration/sandbox/pool-randomness.test.ts',
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

/**
 * Files that compare timings of their own (one worker against two, a path with the gateway against one
 * without): they run in the `timing` project, one at a time after all the others, on an otherwise idle
 * machine. Benchmarks whose assertions hold under load (counts, a pool hit against a container start)
 * stay where they are.
 */
const TIMING_SENSITIVE = [
  'test/integration/queue/bench-queue.test.ts',
  'test/integration/egress/bench.test.ts',
  'test/integration/sandbox/kernel-restart-timing.test.ts',
];

/**
 * integration, integration-runsc and e2e run as one group of files, this many at a time
 * (THREADLAB_TEST_FILE_WORKERS, default 4; 1 runs them one by one). Their time is mostly waiting
 * (containers and processes starting, runs of fixed length, timers), so files overlap well even on two
 * cores: with three at a time the 2-core machine was busy 143 % of its 200 % on average and the run took 776 s;
 * with four, 153 % and 675 s, every file passing. Each file has its own containers (instance ids with its pid), data dirs, ports and Redis key
 * prefixes or a Redis of its own.
 */
const FILE_WORKERS = Number(process.env.THREADLAB_TEST_FILE_WORKERS ?? 4);
if (!Number.isInteger(FILE_WORKERS) || FILE_WORKERS < 1)
  throw new Error(
    `THREADLAB_TEST_FILE_WORKERS must be a whole number of files at a time (1 or more), not "${process.env.THREADLAB_TEST_FILE_WORKERS}"`,
  );
const overlapping = {
  fileParallelism: FILE_WORKERS > 1,
  maxWorkers: FILE_WORKERS,
  // A worker's files share one module graph (the client libraries, src/ and the fakes are imported once per
  // worker, not once per file): 57 s of imports in a run instead of 200 s. Each file's state is its own objects
  // (fakes, processes, containers, ports); nothing is kept in a module between files.
  isolate: false,
  sequence: { groupOrder: 1 },
};

// unit: no network, Docker or Redis. integration: the real Docker engine and Redis.
// e2e: the real Slack, Discord, OpenAI client libraries and a browser against local fakes.
export default defineConfig(async () => {
  const runsc = await runscAvailability();
  // Never silent: without runsc the project still runs runtime.test.ts, whose gVisor tests are reported
  // as skipped with this reason, and the reason is printed once here.
  if (!runsc.registered)
    process.stderr.write(`[integration-runsc] sandbox suite under gVisor skipped: ${runsc.reason}\n`);
  else if (runsc.platform) process.stderr.write(`[integration-runsc] gVisor platform: ${runsc.platform}\n`);
  return {
    test: {
      // The default output, then each project's wall time and the slowest files.
      reporters: ['default', './test/setup/timing-reporter.ts'],
      // The longest files start first, so that they overlap the short ones rather than trail them.
      sequence: { sequencer: SlowFirstSequencer },
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
            // First, on both cores: no file waits on anything but the CPU.
            maxWorkers: 2,
            // The files of a worker share one module graph: src/ is imported once per worker, not once per file
            // (30 s for the project instead of 67 s here). Unit tests keep no state in modules: what one changes
            // (timers, an environment variable) it puts back itself.
            isolate: false,
            sequence: { groupOrder: 0 },
          },
        },
        {
          test: {
            name: 'integration',
            include: ['test/integration/**/*.test.ts'],
            exclude: [RUNTIME_TEST, ...TIMING_SENSITIVE],
            tags: runtimeIndependent(false),
            globalSetup: ['test/setup/global-setup.ts'],
            env: { THREADLAB_TEST_SANDBOX_RUNTIME: 'runc' },
            testTimeout: 120_000,
            hookTimeout: 300_000,
            ...overlapping,
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
            ...overlapping,
          },
        },
        {
          test: {
            name: 'e2e',
            include: ['test/e2e/**/*.test.ts'],
            globalSetup: ['test/setup/global-setup.ts'],
            // What depends on the runtime runs under gVisor in integration-runsc; the bots and CLI
            // processes here use runc (test/support/sandbox-runtime.ts), except the few `threadlab start`
            // files that keep the shipped `auto` (ShippedBot's `runtimeAsShipped`).
            env: { THREADLAB_TEST_SANDBOX_RUNTIME: 'runc' },
            testTimeout: 180_000,
            hookTimeout: 300_000,
            ...overlapping,
          },
        },
        {
          test: {
            name: 'timing',
            include: TIMING_SENSITIVE,
            globalSetup: ['test/setup/global-setup.ts'],
            env: { THREADLAB_TEST_SANDBOX_RUNTIME: 'runc' },
            testTimeout: 120_000,
            hookTimeout: 300_000,
            // Group order 0 without file parallelism: vitest runs these last, one at a time, alone.
            fileParallelism: false,
            sequence: { groupOrder: 0 },
          },
        },
      ],
    },
  };
});
