import { defineConfig } from 'vitest/config';

// Adapter-level Discord e2e tests need neither Docker nor Redis: this config runs them without the
// e2e project's global setup (which builds the sandbox image). `npx vitest run -c test/e2e/discord/vitest.adapter.config.ts`
export default defineConfig({
  test: {
    include: ['test/e2e/discord/**/*.test.ts'],
    exclude: ['test/e2e/discord/**/*.runtime.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
