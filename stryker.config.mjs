// Mutation testing (`npm run test:mutation`, not part of CI): how many deliberate faults in the
// change detector, the order intake's mapping and reconciliation, and the retry policy the fast
// tests catch. One module per run: `MUTATION_MODULE=retry-policy npm run test:mutation` (or
// `sync`, `intake`); all three when unset. Reports land in reports/mutation/.

const modules = {
  'retry-policy': ['functions/accounting/retry-policy.ts'],
  sync: ['functions/core/sync/*.ts'],
  intake: [
    'functions/core/intake/map-order.ts',
    'functions/core/intake/order-totals.ts',
    'functions/core/intake/shopify-order.ts',
    'functions/core/intake/woocommerce-order.ts',
    'functions/core/intake/service-totals.ts',
  ],
};

// The intake runs against its own list of fast test files (see vitest.mutation-intake.config.ts):
// in the fast lane's related mode its mutants also ran the files that start the sandbox and dynalite.
const vitestConfigs = { intake: 'vitest.mutation-intake.config.ts' };

const chosen = process.env.MUTATION_MODULE;
if (chosen !== undefined && !(chosen in modules)) {
  throw new Error(`MUTATION_MODULE: expected one of ${Object.keys(modules).join(', ')}, got '${chosen}'`);
}
const name = chosen ?? 'all';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Only the fast lane's files (the intake: its own list), and of them only those that import the
  // mutated module (related mode).
  vitest: { configFile: vitestConfigs[chosen] ?? 'vitest.unit.config.ts', related: true },
  mutate: chosen ? modules[chosen] : Object.values(modules).flat(),
  coverageAnalysis: 'perTest',
  // Mutants of what runs at module load (the zod schemas of the shop payloads, constant tables)
  // would each need every related test file: hours on two cores. Left out, and said so in the report.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
