import { defineConfig } from 'vitest/config';

// The whole suite (`npm test`, CI). An unhandled error anywhere fails the run: never set
// `dangerouslyIgnoreUnhandledErrors`. The fast lane is vitest.unit.config.ts (docs/testing.md).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
