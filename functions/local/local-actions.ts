/**
 * Every action of the registry, run in process for every connection of the local runtime: the
 * local bus delivers each matched event to the action's entry (the same per-connection path of
 * core its SQS handler calls per record, `connectionActionEntry`), with the
 * idempotency guard and the open sendings on the embedded DynamoDB and the archive on the embedded
 * S3. Scheduled actions (the e-invoice status tracker), scheduled functions on AWS, run on a timer.
 * Each entry builds its dependencies from the ports here, as its Lambda handler does on AWS.
 */

import type { Sandbox } from '#sandbox/index.js';
import type { AccountingApi } from '../accounting/api.js';
import { DEFAULT_SERVICE_VARIANT, type ServiceVariant } from '../accounting/collections.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '../adapters/aws/powertools-idempotency-guard.js';
import { createLazyIsdocSchema } from '../adapters/isdoc/lazy-isdoc-schema.js';
import type { EventBridgeEvent } from '../adapters/local/local-bus.js';
import { type ActionResource, type ActionStores, actionPorts } from '../core/actions/action-definition.js';
import { actionSettingsOfRegistry } from '../core/actions/actions-config.js';
import type { ActionsConfig } from '../core/actions/config.js';
import { type DeadLetterSink, deadLetterInvalid } from '../core/actions/dead-letter-sink.js';
import type { OpenSendings } from '../core/actions/open-sendings.js';
import { eventActions, scheduledActionDefinitions } from '../core/actions/registry.js';
import { reportEInvoicingReadinessAction } from '../core/actions/report-einvoicing-readiness/action.js';
import {
  connectionReadiness,
  readinessPeriod,
} from '../core/actions/report-einvoicing-readiness/connection-readiness.js';
import type { ActionEntry } from '../core/actions/run-action.js';
import { DEFAULT_PARTNER_FIELD, defaultEInvoicingPolicy } from '../core/actions/send-invoice/settings.js';
import {
  type ActionConnectionScanner,
  connectionActionEntry,
  connectionActionsConfig,
  type EachConnectionDeps,
  scheduledForEachConnection,
} from '../core/connection-actions.js';
import {
  CONNECTION_DEFAULTS,
  type ConnectionEntry,
  DEPLOYMENT_CREDENTIALS,
} from '../core/connections/connection-entry.js';
import type { ReadinessReport } from '../core/einvoicing/readiness.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../core/ports.js';
import { buildRoutes, type Route } from '../core/routes.js';
import { ENV } from '../shared/env-names.js';
import { registryOfOne } from '../wiring/connection-clients.js';
import type { LocalConnections } from './local-connections.js';
import { LOCAL_RESOURCES, type LocalStores } from './local-stores.js';

/** A publisher with per-route dead-letter sinks (the local bus). */
type BindablePublisher = EventPublisher & { deadLetterSink?(routeId: string): DeadLetterSink };

export interface LocalActions {
  readonly routes: Route[];
  readonly config: ActionsConfig;
  /**
   * Late binding: the bus is built after the actions (it needs their routes). A publisher with
   * per-route dead-letter sinks (the local bus) also receives invalid events on their first delivery.
   */
  bindPublisher(publisher: BindablePublisher): void;
  deliver(route: Route, event: EventBridgeEvent): Promise<void>;
  /** Runs the scheduled actions (e-invoice tracker) once. */
  runScheduled(): Promise<void>;
  /**
   * The e-invoicing readiness report of each connection the daily report covers (its schedule is
   * on), as `einvoice readiness` and the report on AWS make it: what the console's page shows.
   */
  readiness(): Promise<ReadinessReport[]>;
  startTimers(intervalMs: number): void;
  stopTimers(): void;
  close(): Promise<void>;
}

/**
 * The connections of the local runtime as the action path reads them: the registry (entries as
 * last scanned), each connection's client (the one client builder), and the sandbox company a
 * connection is, when it is one.
 */
export type ActionConnectionSource = Pick<LocalConnections, 'registry' | 'apiFor' | 'sandboxOf'>;

export interface LocalActionsOptions {
  connections: ActionConnectionSource;
  stores: LocalStores;
  logger: Logger;
  clock: Clock;
}

/** A registry of one connection whose client is built already (the benchmark). */
export function oneLocalConnection(connection: {
  name: string;
  api: AccountingApi;
  variant?: ServiceVariant;
  sandbox?: Sandbox | undefined;
}): ActionConnectionSource {
  const entry: ConnectionEntry = {
    name: connection.name,
    variant: connection.variant ?? DEFAULT_SERVICE_VARIANT,
    credentialsSecret: DEPLOYMENT_CREDENTIALS,
    actions: {},
    pollIntervalSeconds: CONNECTION_DEFAULTS.pollIntervalSeconds,
    paused: false,
    rateLimit: CONNECTION_DEFAULTS.rateLimit,
  };
  return {
    ...registryOfOne(entry, connection.api),
    sandboxOf: (name) => (name === entry.name ? connection.sandbox : undefined),
  };
}

const partnersOfSandbox = new WeakMap<Sandbox, Map<string, string>>();

/**
 * Identification numbers of every sandbox partner, read once per sandbox and field: the demo sends
 * every invoice through the e-invoicing network.
 */
function sandboxEInvoicePartners(sandbox: Sandbox, field: string): string {
  const known = partnersOfSandbox.get(sandbox) ?? new Map<string, string>();
  partnersOfSandbox.set(sandbox, known);
  const cached = known.get(field);
  if (cached !== undefined) return cached;
  const out = new Set<string>();
  const { items } = sandbox.state.list('BusinessPartners', { pageSize: 10_000, pageNumber: 1 });
  const leaf = field.split('.').at(-1) ?? field;
  for (const p of items) {
    const value = p[leaf];
    if (typeof value === 'string' && value) out.add(value);
  }
  const partners = [...out].join(',');
  known.set(field, partners);
  return partners;
}

/** The deployment's settings of the local runtime: the embedded resources. */
const LOCAL_DEPLOYMENT_ENV = {
  [ENV.actionsIdempotencyTable]: LOCAL_RESOURCES.idempotencyTable,
  [ENV.actionsArchiveBucket]: LOCAL_RESOURCES.archiveBucket,
  [ENV.actionsStateTable]: LOCAL_RESOURCES.stateTable,
} as const;

/**
 * A connection's entry for the action path: its `ACTIONS_*` settings (the embedded resources stay
 * the runtime's), and with the sandbox, its partners as e-invoicing partners unless a sending
 * channel is configured.
 */
function entryOf(entry: ConnectionEntry, sandbox: Sandbox | undefined): ConnectionEntry {
  const actions: Record<string, string> = {};
  for (const [key, value] of Object.entries(entry.actions)) {
    if (!(key in LOCAL_DEPLOYMENT_ENV)) actions[key] = value;
  }
  // Under the Slovak mandate the partners' DIČs decide: no list is made up for it.
  const policy = actions.ACTIONS_EINVOICING ?? defaultEInvoicingPolicy(entry.variant);
  if (
    sandbox &&
    policy === 'lists' &&
    !actions.ACTIONS_EINVOICE_PARTNERS &&
    !actions.ACTIONS_EMAIL_PARTNERS
  ) {
    const field = actions.ACTIONS_PARTNER_FIELD || DEFAULT_PARTNER_FIELD;
    actions.ACTIONS_EINVOICE_PARTNERS = sandboxEInvoicePartners(sandbox, field);
  }
  return { ...entry, actions };
}

/** The stores of every connection's actions, on the embedded servers (keys name the connection). */
function localStores(stores: LocalStores, config: ActionsConfig): ActionStores {
  const dynamoDb = stores.servers.dynamoDb;
  return {
    idempotency: createPowertoolsGuard({
      client: dynamoDb,
      tableName: LOCAL_RESOURCES.idempotencyTable,
      expiresAfterSeconds: config.idempotency.expiresAfterSeconds,
    }),
    actionState: createDynamoDbCheckpointStore<OpenSendings>({
      client: dynamoDb,
      tableName: LOCAL_RESOURCES.stateTable,
    }),
    archive: stores.archive,
    sendingRecords: stores.archive,
    reports: stores.archive,
  };
}

/** Each route id once; with many connections, matching every connection's detail-types of it. */
function mergeRoutes(perConnection: readonly Route[][]): Route[] {
  if (perConnection.length === 1) return perConnection[0] as Route[];
  const byId = new Map<string, Route>();
  for (const routes of perConnection) {
    for (const route of routes) {
      const seen = byId.get(route.id);
      const types = new Set([...(seen?.pattern['detail-type'] ?? []), ...route.pattern['detail-type']]);
      byId.set(route.id, { ...(seen ?? route), pattern: { 'detail-type': [...types] } });
    }
  }
  return [...byId.values()];
}

/** One pass of every scheduled action over every connection (but `notLocal` ones); a failed pass is logged. */
function localSchedules(
  deps: Omit<EachConnectionDeps<ActionResource, ConnectionEntry>, 'registry'> & {
    registry: ActionConnectionScanner<ConnectionEntry>;
  },
  localOnly: ReadonlySet<string>,
) {
  let running: Promise<void> | undefined;
  const runOnce = async () => {
    for (const action of scheduledActionDefinitions.filter((a) => !localOnly.has(a.name))) {
      await scheduledForEachConnection(action, deps).catch((error: unknown) => {
        deps.logger.warn('scheduled action failed', {
          action: action.name,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }
  };
  return {
    async run() {
      running ??= runOnce().finally(() => {
        running = undefined;
      });
      await running;
    },
    settled: () => running,
  };
}

/**
 * The scheduled actions the local timer leaves out (`notLocal`: shown on demand instead), and
 * whether any other has a schedule for these connections' settings.
 */
function timedActions(configs: readonly ActionsConfig[]) {
  const localOnly = new Set(
    scheduledActionDefinitions
      .filter((a) => configs.some((c) => a.schedules(c).some((x) => x.notLocal)))
      .map((a) => a.name),
  );
  const anySchedule = configs.some((c) =>
    scheduledActionDefinitions.some((a) => !localOnly.has(a.name) && a.schedules(c).length > 0),
  );
  return { localOnly, anySchedule };
}

/** The readiness report of each unpaused connection the daily report covers, on its own client. */
async function localReadiness(
  registry: ActionConnectionScanner<ConnectionEntry>,
  connections: ActionConnectionSource,
  configOf: (entry: ConnectionEntry) => ActionsConfig,
  clock: Clock,
): Promise<ReadinessReport[]> {
  const out: ReadinessReport[] = [];
  for (const entry of (await registry.scan()).entries.filter((e) => !e.paused)) {
    const settings = configOf(entry);
    if (reportEInvoicingReadinessAction.schedules(settings).length === 0) continue;
    const api = await connections.apiFor(entry);
    out.push(await connectionReadiness(api, settings, readinessPeriod(clock.now()), entry.name));
  }
  return out;
}

/**
 * The actions of the local runtime, through the one per-connection path of core
 * (`core/connection-actions.ts`): each delivery goes to the action's one entry, which reads the
 * event's connection from `connections`, refuses an unknown, paused or switched-off one as on AWS,
 * and runs the action on that connection's client and settings.
 */
export async function startLocalActions(options: LocalActionsOptions): Promise<LocalActions> {
  const { logger, connections } = options;
  const env: Record<string, string | undefined> = { ...LOCAL_DEPLOYMENT_ENV };
  const registry = {
    get: async (name: string) => {
      const entry = await connections.registry.get(name);
      return entry ? entryOf(entry, connections.sandboxOf(name)) : undefined;
    },
    scan: async () => ({
      entries: (await connections.registry.scan()).entries.map((e) =>
        entryOf(e, connections.sandboxOf(e.name)),
      ),
    }),
  };
  const configOf = (entry: ConnectionEntry) => connectionActionsConfig(env, entry, actionSettingsOfRegistry);
  const initial = (await registry.scan()).entries;
  const first = initial[0];
  if (!first) throw new Error('local actions: no connection');
  const config = configOf(first);
  let bound: BindablePublisher | undefined;
  const publisher: EventPublisher = {
    publish(events: readonly BusEvent[]) {
      if (!bound) throw new Error('local actions: no publisher bound');
      return bound.publish(events);
    },
  };
  const stores = localStores(options.stores, config);
  const isdocSchema = createLazyIsdocSchema();
  const portsFor = async (entry: ConnectionEntry, settings: ActionsConfig) => {
    const api = await connections.apiFor(entry);
    const { clock } = options;
    return actionPorts({ config: settings, api, publisher, clock, logger, isdocSchema }, stores);
  };
  const deps = { registry, env, portsFor, logger };
  const entries = new Map<string, ActionEntry>(
    eventActions.map((a) => [a.name, connectionActionEntry(a, deps)]),
  );
  const { localOnly, anySchedule } = timedActions(initial.map(configOf));
  const schedules = localSchedules(deps, localOnly);
  let timer: NodeJS.Timeout | undefined;
  const runScheduled = async () => {
    if (bound) await schedules.run();
  };
  const stopTimers = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  return {
    routes: mergeRoutes(initial.map((c) => buildRoutes(configOf(c)))),
    config,
    bindPublisher(p) {
      bound = p;
    },
    async deliver(route, event) {
      const entry = entries.get(route.handler);
      if (!entry) throw new Error(`no local entry for handler '${route.handler}'`);
      const result = await entry(event, { remainingTimeMs: route.timeoutSeconds * 1000 });
      if (result.status !== 'invalid') return;
      // Like the SQS handler: dead-lettered on this first delivery, never retried.
      const sink = bound?.deadLetterSink?.(route.id);
      const attributes = { action: route.handler, reason: result.reason, messageId: event.id };
      await deadLetterInvalid(sink, logger, JSON.stringify(event), attributes, 'bus');
    },
    runScheduled,
    readiness: () => localReadiness(registry, connections, configOf, options.clock),
    startTimers(intervalMs) {
      if (!anySchedule || timer) return;
      timer = setInterval(() => void runScheduled(), Math.max(250, intervalMs));
      timer.unref();
    },
    stopTimers,
    async close() {
      stopTimers();
      await schedules.settled();
    },
  };
}
