/**
 * Test options for a test in a runtime-sensitive sandbox file that checks the driver's own logic
 * (state files, the display protocol, the host copy of files, what the image lists): it runs under
 * runc only, and integration-runsc skips it (see the `runtime-independent` tag in vitest.config.ts).
 * Never for an isolation, limits or attack probe.
 */
export const anyRuntime = { tags: ['runtime-independent'] };
