import { defineConfig } from 'vitest/config';

// Adapter-level Slack e2e tests (real bolt and web-api against the local fake Slack) need neither
// Docker nor Redis: this config runs them without the e2e project's global setup, which builds the
// sandbox image. `npx vitest run -c test/e2e/slack/vitest.adapter.config.ts`
export default defineConfig({
  test: {
    include: ['test/e2e/slack/**/*.test.ts'],
    exclude: ['test/e2e/slack/runtime.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
