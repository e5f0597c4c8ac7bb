import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { unitTests } from './test/unit-tests.js';

// The whole suite (`npm test`, CI). An unhandled error anywhere fails the run: never set
// `dangerouslyIgnoreUnhandledErrors`. Two projects share the workers:
// - `unit`: the fast lane's files (test/unit-tests.ts, vitest.unit.config.ts), in worker threads
//   that share one module graph (`isolate: false`): they start no server or child process, and
//   importing the SDKs, zod schemas and the catalog once per worker instead of once per file is
//   most of their time;
// - `full`: every other file, each in a fork of its own.
const env = {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // Every synthesis with bundling (the deployment test's, the bundle check's) builds a function's
  // bundle once per run and reuses it while its sources are unchanged (scripts/bundle-function.mjs).
  ACCOUNTING_EVENTS_BUNDLE_CACHE: 'node_modules/.cache/accounting-events-bundles/test',
};

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most test files wait on servers and child processes more than they compute: one worker more
    // than there are cores keeps the cores busy (vitest's default, cores − 1, is a single worker on
    // two cores and left one idle: 6 min 10 s against 3 min 30 s on a quiet 2-core machine).
    maxWorkers: availableParallelism() + 1,
    env,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [...unitTests],
          pool: 'threads',
          isolate: false,
          setupFiles: ['test/unit-lane-guard.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'full',
          include: ['test/**/*.test.ts', 'functions/**/*.test.ts'],
          exclude: [...unitTests, 'node_modules/**'],
          pool: 'forks',
        },
      },
    ],
  },
});
