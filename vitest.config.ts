import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The whole suite (`npm test`, CI). An unhandled error anywhere fails the run: never set
// `dangerouslyIgnoreUnhandledErrors`. The fast lane is vitest.unit.config.ts (docs/testing.md).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'functions/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files wait on servers and child processes more than they compute: one fork more
    // than there are cores keeps the cores busy (vitest's default, cores − 1, is a single fork on
    // two cores and left one idle: 6 min 10 s against 3 min 30 s on a quiet 2-core machine).
    maxWorkers: availableParallelism() + 1,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
