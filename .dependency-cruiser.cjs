/** Layer rules: handlers → core ← adapters; `accounting` and `shared` are leaves; nothing points up. */
const fn = (layer) => `^functions/${layer}/`;

/** An action's tests live in its folder (`core/actions/<name>/*.test.ts`); they are never bundled, so core's rules do not bind them. */
const TESTS = '\\.test\\.ts$';

/**
 * Sub-layers of core, lowest first; a module may import its own sub-layer and the ones before it,
 * never one after it ("back up"). The event catalog's families and envelopes (`events`) know no
 * action and no intake; the poll path (`sync`) knows events; each action declares its outcome events
 * beside its code (`actions`); the intake may use the actions' guard and outcomes; the full catalog
 * (`event-catalog.ts`) collects the actions' and the intake's events through the action registry;
 * a connection (`connections`) carries its action settings and polls through `sync`; delivery uses
 * the full catalog and the dead-letter sink; the composition on top (`routes.ts`,
 * `connection-actions.ts`) joins the registry of connections to the registry of actions.
 * Root leaves (`connection.ts`, `errors.ts`, `ports.ts`, `event-pattern.ts`, `route-spec.ts`, …)
 * stay outside the order: they import no sub-layer above `actions`.
 */
const coreLayers = [
  ['events', '^functions/core/events/'],
  ['sync', '^functions/core/sync/'],
  ['actions', '^functions/core/actions/'],
  ['intake', '^functions/core/intake/'],
  ['event-catalog', '^functions/core/event-catalog\\.ts$'],
  ['connections', '^functions/core/connections/'],
  ['delivery', '^functions/core/delivery/'],
  ['composition', '^functions/core/(routes|connection-actions)\\.ts$'],
];
const coreLayerRules = coreLayers.slice(0, -1).map(([name, path], i) => ({
  name: `core-${name}-imports-no-layer-above`,
  severity: 'error',
  comment: `core/${name} may import ${
    coreLayers
      .slice(0, i)
      .map(([n]) => n)
      .join(', ') || 'no other sub-layer'
  }; never ${coreLayers
    .slice(i + 1)
    .map(([n]) => n)
    .join(', ')} (see the order above).`,
  from: { path, pathNot: TESTS },
  to: {
    path: coreLayers
      .slice(i + 1)
      .map(([, p]) => `(${p})`)
      .join('|'),
  },
}));
const rootLeavesPointDown = {
  name: 'core-root-leaves-import-no-catalog-or-composition',
  severity: 'error',
  comment:
    'The ports and shared shapes at the root of core are read by every sub-layer; they import neither the full catalog nor the composition.',
  from: {
    path: '^functions/core/(connection|errors|ports|event-pattern|route-spec|partner-from-checkout)\\.ts$',
  },
  to: {
    path: '^functions/core/((event-catalog|routes|connection-actions)\\.ts$|(intake|connections|delivery)/)',
  },
};

module.exports = {
  forbidden: [
    ...coreLayerRules,
    rootLeavesPointDown,
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
      to: { path: '^(functions/(accounting|core|adapters|handlers|local|wiring)|infra|sandbox)/' },
    },
    {
      name: 'accounting-is-a-leaf',
      severity: 'error',
      comment: 'The API client may use shared/ only; core uses it, never the reverse.',
      from: { path: fn('accounting') },
      to: { path: '^(functions/(core|adapters|handlers|local|wiring)|infra|sandbox)/' },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment:
        'core receives its ports; it never imports adapters, handlers, the local runtime, infra or the sandbox.',
      from: { path: fn('core'), pathNot: TESTS },
      to: { path: '^(functions/(adapters|handlers|local|wiring)|infra|sandbox)/' },
    },
    {
      name: 'core-has-no-io',
      severity: 'error',
      comment: 'No AWS SDK, file system or process in core.',
      from: { path: fn('core'), pathNot: TESTS },
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
      to: { path: '^(functions/(handlers|local|wiring)|infra|sandbox)/' },
    },
    {
      name: 'handlers-are-not-local',
      severity: 'error',
      comment: 'Lambda entry points never import the local runtime, infra or the sandbox.',
      from: { path: fn('handlers') },
      to: { path: '^(functions/local|infra|sandbox)/' },
    },
    {
      name: 'local-imports-no-handler',
      severity: 'error',
      comment:
        'The local runtime composes core, adapters and the shared wiring (functions/wiring/); it never imports a Lambda handler module, and infra is CDK only.',
      from: { path: fn('local') },
      to: { path: '^(functions/handlers|infra)/' },
    },
    {
      name: 'wiring-is-shared-by-both-runtimes',
      severity: 'error',
      comment:
        'functions/wiring/ joins core and adapters for the Lambda handlers and the local runtime alike; it imports neither of them.',
      from: { path: fn('wiring') },
      to: { path: '^(functions/(handlers|local)|infra|sandbox)/' },
    },
    {
      name: 'sandbox-stands-alone',
      severity: 'error',
      comment: 'The twin reads the endpoint catalog only; it never imports our core, adapters or handlers.',
      from: { path: '^sandbox/' },
      to: { path: '^functions/(core|adapters|handlers|local|wiring)/' },
    },
    {
      name: 'infra-imports-no-runtime',
      severity: 'error',
      comment:
        'CDK reads the routing table and catalog from core; it does not import adapters, handlers or the local runtime.',
      from: { path: '^infra/' },
      to: { path: '^functions/(adapters|handlers|local|wiring)/' },
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
