import { defineConfig } from 'vitest/config';

/**
 * The test files the intake's mutation run (`MUTATION_MODULE=intake npm run test:mutation`) runs
 * against each mutant: the intake's fast files that reach the mapping and the reconciliation, and
 * none that starts the sandbox or dynalite (in the fast lane's related mode, those started their
 * servers again for every mutant they cover). The property tests run 100 orders per property here
 * (`TOTALS_PROPERTY_RUNS`) instead of 1,000.
 */
export default defineConfig({
  test: {
    include: [
      'test/intake/map-order.test.ts',
      'test/intake/map-order-request.test.ts',
      'test/intake/order-totals.test.ts',
      'test/intake/platform-orders.test.ts',
      'test/intake/platform-payloads.test.ts',
      'test/intake/price-line.test.ts',
      'test/intake/service-totals.test.ts',
      'test/intake/totals-properties.test.ts',
    ],
    testTimeout: 30_000,
    pool: 'threads',
    isolate: false,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', TOTALS_PROPERTY_RUNS: '100' },
  },
});
