import type { RuntimeSetting } from '../../sandbox/runtime.js';

/**
 * THREADLAB_SANDBOX_RUNTIME for the bots, CLI processes and in-process runtimes a test starts: the
 * runtime its vitest project tests (THREADLAB_TEST_SANDBOX_RUNTIME: runc in `integration` and `e2e`,
 * runsc in `integration-runsc`), or nothing (auto, as shipped) when a file runs outside a project.
 * What depends on the runtime (isolation, limits, attack probes, crash recovery) is run under gVisor by
 * `integration-runsc`; a few ShippedBot files (test/e2e/shipped/shipped-bot.ts, `runtimeAsShipped`) keep `auto`.
 */
export function sandboxRuntimeEnv(): { THREADLAB_SANDBOX_RUNTIME?: string } {
  const runtime = process.env.THREADLAB_TEST_SANDBOX_RUNTIME;
  return runtime ? { THREADLAB_SANDBOX_RUNTIME: runtime } : {};
}

/** The same runtime for a DockerSandbox a test creates itself; `auto` outside a project. */
export function sandboxRuntime(): RuntimeSetting {
  const runtime = process.env.THREADLAB_TEST_SANDBOX_RUNTIME;
  return runtime === 'runc' || runtime === 'runsc' ? runtime : 'auto';
}
