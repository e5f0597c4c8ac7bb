/** Layer rules: handlers → core ← adapters; `accounting` and `shared` are leaves; nothing points up. */
const fn = (layer) => `^functions/${layer}/`;
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make modules impossible to reason about in isolation.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-is-a-leaf',
      severity: 'error',
      comment: 'shared/ holds clock, env names and the logger; it imports no other layer.',
      from: { path: fn('shared') },
      to: { path: '^(functions/(accounting|core|adapters|handlers|local)|infra|sandbox)/' },
    },
    {
      name: 'accounting-is-a-leaf',
      severity: 'error',
      comment: 'The API client may use shared/ only; core uses it, never the reverse.',
      from: { path: fn('accounting') },
      to: { path: '^(functions/(core|adapters|handlers|local)|infra|sandbox)/' },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment:
        'core receives its ports; it never imports adapters, handlers, the local runtime, infra or the sandbox.',
      from: { path: fn('core') },
      to: { path: '^(functions/(adapters|handlers|local)|infra|sandbox)/' },
    },
    {
      name: 'core-has-no-io',
      severity: 'error',
      comment: 'No AWS SDK, file system or process in core.',
      from: { path: fn('core') },
      to: {
        path: '^(node:)?(fs|fs/promises|child_process)$|@aws-sdk/|node_modules/@aws-sdk/',
        dependencyTypes: ['core', 'npm'],
      },
    },
    {
      name: 'adapters-point-down',
      severity: 'error',
      comment: 'Adapters implement ports; they do not call handlers or the local runtime.',
      from: { path: fn('adapters') },
      to: { path: '^(functions/(handlers|local)|infra|sandbox)/' },
    },
    {
      name: 'handlers-are-not-local',
      severity: 'error',
      comment: 'Lambda entry points never import the local runtime, infra or the sandbox.',
      from: { path: fn('handlers') },
      to: { path: '^(functions/local|infra|sandbox)/' },
    },
    {
      name: 'local-reuses-no-handler-internals',
      severity: 'error',
      comment: 'The local runtime composes core and adapters; infra is CDK only.',
      from: { path: fn('local') },
      to: { path: '^infra/' },
    },
    {
      name: 'sandbox-stands-alone',
      severity: 'error',
      comment: 'The twin reads the endpoint catalog only; it never imports our core, adapters or handlers.',
      from: { path: '^sandbox/' },
      to: { path: '^functions/(core|adapters|handlers|local)/' },
    },
    {
      name: 'infra-imports-no-runtime',
      severity: 'error',
      comment:
        'CDK reads the routing table and catalog from core; it does not import adapters, handlers or the local runtime.',
      from: { path: '^infra/' },
      to: { path: '^functions/(adapters|handlers|local)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
