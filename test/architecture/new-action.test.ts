/**
 * An action is its folder plus one registry line: a copy of the project gets a throwaway action
 * (triggered by the intake's `EshopOrder.Imported`, publishing an outcome of its own, with a setting
 * of its own) and no other edit, and then typechecks, lists its outcome in the catalog and the
 * generated docs, lists its setting, routes to it, synthesizes its function, queue, rule and grants,
 * and bundles its generated Lambda entry, which loads. Then it runs, in the copy: a shop order
 * through the deployment's intake (the bundles of `cdk.out` with their roles) ends in its outcome
 * with no call denied, and one through the local runtime's intake ends in its outcome on the
 * local bus (./new-action-runs.ts).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from './new-action-runs.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NAME = 'announce-imported-orders';
const OUTCOME = 'EshopOrder.Announced';

const FOLDER: Record<string, string> = {
  'events.ts': `import * as z from 'zod';
import { type CatalogEntry, ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';

export const ANNOUNCED = 'EshopOrder.Announced' as const;

export const announcedEntry: CatalogEntry<typeof ANNOUNCED> = {
  detailType: ANNOUNCED,
  description: 'An imported shop order was announced.',
  schema: z.object({ version: z.literal(ENVELOPE_VERSION), connection: z.string(), id: z.string() }),
  example: { version: ENVELOPE_VERSION, connection: 'acme', id: 'shopify:1001' },
};
`,
  'settings.ts': `import { defineActionSettings, flag, type SectionOf } from '../action-settings.js';

export const announceSettings = defineActionSettings(
  'announce',
  { ACTIONS_ANNOUNCE_IMPORTED_ORDERS: { schema: flag(true), default: 'true', description: 'announce imported orders' } },
  (e) => ({ enabled: e.ACTIONS_ANNOUNCE_IMPORTED_ORDERS }),
);

declare module '../config.js' {
  interface ActionSections {
    announce: SectionOf<typeof announceSettings>;
  }
}
`,
  'action.ts': `import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { intakeEntry } from '#functions/core/events/intake-events.js';
import { actionContextDeps, defineEventAction, eventSourceOf } from '../action-definition.js';
import { publishOutcome } from '../outcomes.js';
import { ANNOUNCED, announcedEntry } from './events.js';
import { announceSettings } from './settings.js';

export const announceImportedOrdersAction = defineEventAction({
  name: '${NAME}',
  module: import.meta.url,
  uses: [],
  settings: announceSettings,
  events: [announcedEntry],
  triggers: [intakeEntry('Imported')],
  outcomes: [ANNOUNCED, ACTION_FAILED],
  deps: (p) => actionContextDeps(p),
  run: (deps) => async (event) => {
    await publishOutcome(deps.publisher, event.source, announcedEntry, {
      version: 1,
      connection: event.envelope.connection,
      id: event.envelope.id,
    }, deps.clock.now());
    return { status: 'done' };
  },
  routes: (config) =>
    config.announce.enabled
      ? [{
          id: '${NAME}',
          description: 'Announce each imported shop order.',
          pattern: { source: eventSourceOf(config), 'detail-type': ['EshopOrder.Imported'] },
          maxConcurrency: 2,
          maxReceiveCount: 3,
          timeoutSeconds: 30,
        }]
      : [],
});
`,
};

/** Run in the copy: what follows from the registry, as JSON. */
const PROBE = `import { writeFileSync } from 'node:fs';
import { actionSettingNames, renderActionSettingsRows } from './functions/core/actions/actions-config.js';
import { eventCatalog } from './functions/core/event-catalog.js';
import { renderEventsMarkdown } from './functions/core/events/render-docs.js';
import { buildRoutes } from './functions/core/routes.js';
import { findHandlerEntry } from './infra/constructs/handler-entry.js';
import { bundleFunction } from './scripts/bundle-function.mjs';
import { buildTestApp } from './test/infra/support.js';
import { runDeployed, runLocal } from './test/architecture/new-action-runs.js';

const app = buildTestApp();
const entry = findHandlerEntry('${NAME}');
const outdir = process.argv[2];
await bundleFunction({ ...('source' in entry ? { entrySource: entry.source } : { entry: entry.entry }), outdir });
const bundle = await import(outdir + '/index.mjs');
writeFileSync(process.argv[3], JSON.stringify({
  catalog: eventCatalog.map((e) => e.detailType),
  docs: renderEventsMarkdown(eventCatalog),
  settings: actionSettingNames,
  settingsRows: renderActionSettingsRows(),
  routes: buildRoutes().map((r) => ({ handler: r.handler, detailTypes: r.pattern['detail-type'], outcomes: r.outcomes })),
  template: app.statelessTemplate.toJSON(),
  generated: 'source' in entry,
  handlerType: typeof bundle.handler,
  local: await runLocal('${OUTCOME}'),
  deployed: await runDeployed(),
}));
`;

let copy: string;
/** The copy's typecheck, started beside the probe (it reads none of the probe's files). */
let typecheck: Promise<unknown>;
let result: {
  catalog: string[];
  docs: string;
  settings: string[];
  settingsRows: string;
  routes: { handler: string; detailTypes: string[]; outcomes: string[] }[];
  template: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
  generated: boolean;
  handlerType: string;
  local: RunReport;
  deployed: RunReport;
};

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'new-action-'));
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(copy, file));
    } catch {
      // A file listed but deleted in the work tree.
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  // The folder …
  const folder = join(copy, 'functions', 'core', 'actions', NAME);
  mkdirSync(folder, { recursive: true });
  for (const [file, text] of Object.entries(FOLDER)) writeFileSync(join(folder, file), text);
  // … and one registry line (its import, and its place in the list).
  const registryPath = join(copy, 'functions', 'core', 'actions', 'registry.ts');
  const registry = readFileSync(registryPath, 'utf8');
  const withLine = registry
    .replace(/\nconst actions = \[\n/, `\nconst actions = [\n  announceImportedOrdersAction,\n`)
    .replace(/^(import .*\n)/m, `import { announceImportedOrdersAction } from './${NAME}/action.js';\n$1`);
  expect(withLine).not.toBe(registry);
  writeFileSync(registryPath, withLine);
  typecheck = run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit', '-p', copy], { cwd: copy });
  // Awaited by its test; until then a failure is not an unhandled rejection.
  typecheck.catch(() => undefined);
  writeFileSync(join(copy, 'probe.mts'), PROBE);
  const out = join(copy, 'probe.json');
  await run(process.execPath, ['--import', 'tsx', 'probe.mts', join(copy, 'bundle'), out], {
    cwd: copy,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  result = JSON.parse(readFileSync(out, 'utf8'));
}, 600_000);

afterAll(async () => {
  await typecheck?.catch(() => undefined);
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('a new action is its folder plus one registry line', () => {
  it('typechecks', async () => {
    await expect(typecheck).resolves.toBeDefined();
  }, 600_000);

  it('lists its outcome in the catalog and the generated docs, and its setting in the settings table', () => {
    expect(result.catalog).toContain(OUTCOME);
    expect(result.docs).toContain(`### \`${OUTCOME}\``);
    expect(result.settings).toContain('ACTIONS_ANNOUNCE_IMPORTED_ORDERS');
    expect(result.settingsRows).toContain(
      '| `ACTIONS_ANNOUNCE_IMPORTED_ORDERS` | `true` | announce imported orders |',
    );
  });

  it('is routed an intake event (EshopOrder.Imported)', () => {
    expect(result.routes).toContainEqual({
      handler: NAME,
      detailTypes: ['EshopOrder.Imported'],
      outcomes: [OUTCOME, 'Action.Failed'],
    });
  });

  it('synthesizes its function, queue, rule and grants', () => {
    const resources = Object.entries(result.template.Resources);
    const fn = resources.find(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Function' &&
        (r.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables
          ?.POWERTOOLS_SERVICE_NAME === `action-${NAME}`,
    );
    expect(fn, 'its function').toBeDefined();
    const rule = resources.find(
      ([, r]) =>
        r.Type === 'AWS::Events::Rule' &&
        JSON.stringify(r.Properties?.EventPattern ?? {}).includes('"EshopOrder.Imported"'),
    );
    expect(rule, 'its rule').toBeDefined();
    expect(JSON.stringify(rule?.[1].Properties?.Targets), 'the rule targets a queue').toMatch(/Queue/);
    const mapping = resources.find(
      ([, r]) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' &&
        JSON.stringify(r.Properties?.FunctionName ?? '').includes(fn![0]),
    );
    expect(mapping, 'its queue triggers its function').toBeDefined();
    const grants = resources
      .filter(([, r]) => r.Type === 'AWS::IAM::Policy')
      .map(([, r]) => JSON.stringify(r.Properties))
      .filter((p) => p.includes(OUTCOME));
    expect(grants.length, 'a PutEvents grant for its outcome').toBeGreaterThan(0);
  });

  it('bundles its generated Lambda entry, which loads its definition', () => {
    expect(result.generated).toBe(true);
    expect(result.handlerType).toBe('function');
  });

  it('runs from its bundle with its role: a shop order through the deployed intake ends in its outcome, no call denied', () => {
    const { deployed } = result;
    expect(deployed.problems).toBe('');
    expect(deployed.status).toBe(202);
    const types = deployed.published.map((p) => p.detailType);
    expect(types.filter((t) => t === 'EshopOrder.Imported')).toHaveLength(1);
    const announced = deployed.published.filter((p) => p.detailType === OUTCOME);
    expect(announced, JSON.stringify(types)).toHaveLength(1);
    expect(announced[0]?.caller, 'published by its own function').toMatch(/announceimportedorders/i);
    expect(types).not.toContain('Action.Failed');
  });

  it('runs in the local runtime: a shop order through the local intake ends in its outcome on the local bus', () => {
    const { local } = result;
    expect(local.problems).toBe('');
    expect(local.status).toBe(202);
    const types = local.published.map((p) => p.detailType);
    expect(types.indexOf('EshopOrder.Imported'), JSON.stringify(types)).toBeGreaterThanOrEqual(0);
    expect(types.indexOf(OUTCOME)).toBeGreaterThan(types.indexOf('EshopOrder.Imported'));
    expect(types).not.toContain('Action.Failed');
  });
});
