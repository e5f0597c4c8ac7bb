import { defineConfig } from 'vitest/config';
import { unitTests } from './test/unit-tests.js';

/**
 * The fast lane (`npm run test:unit`): the tests that start no server, sandbox, runtime or child
 * process. One module graph per worker (`isolate: false`): these files share no state, and importing
 * the SDKs once per worker instead of once per file is most of the time saved.
 */
export default defineConfig({
  test: {
    include: [...unitTests],
    testTimeout: 30_000,
    pool: 'threads',
    isolate: false,
    // Enforced: listening or spawning in a fast-lane file throws (test/unit-lane-guard.ts).
    setupFiles: ['test/unit-lane-guard.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
