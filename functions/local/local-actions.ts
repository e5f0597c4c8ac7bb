/**
 * Every action of the registry, run in process: the local bus delivers each matched event to the
 * action's entry (the same `createActionEntry` its SQS handler calls per record), with the
 * idempotency guard and the open sendings on the embedded DynamoDB and the archive on the embedded
 * S3. Scheduled actions (the e-invoice status tracker), scheduled functions on AWS, run on a timer.
 * Each entry builds its dependencies from the ports here, as its Lambda handler does on AWS.
 */

import type { Sandbox } from '../../sandbox/index.js';
import type { AccountingApi } from '../accounting/api.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '../adapters/aws/powertools-idempotency-guard.js';
import { createLazyIsdocSchema } from '../adapters/isdoc/lazy-isdoc-schema.js';
import type { EventBridgeEvent } from '../adapters/local/local-bus.js';
import { type ActionPorts, type ActionResource, actionPorts } from '../core/actions/action-definition.js';
import { type ActionsConfig, loadActionsConfig } from '../core/actions/config.js';
import { type DeadLetterSink, deadLetterInvalid } from '../core/actions/dead-letter-sink.js';
import type { OpenSendings } from '../core/actions/open-sendings.js';
import { eventActions, scheduledActionDefinitions } from '../core/actions/registry.js';
import { type ActionEntry, createActionEntry } from '../core/actions/run-action.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../core/ports.js';
import { buildRoutes, type Route } from '../core/routes.js';
import { ENV } from '../shared/env-names.js';
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
  startTimers(intervalMs: number): void;
  stopTimers(): void;
  close(): Promise<void>;
}

export interface LocalActionsOptions {
  api: AccountingApi;
  stores: LocalStores;
  env: Record<string, string | undefined>;
  connection: string;
  sandbox: Sandbox | undefined;
  logger: Logger;
  clock: Clock;
}

/** Identification numbers of every sandbox partner: the demo sends every invoice through the e-invoicing network. */
function sandboxEInvoicePartners(sandbox: Sandbox, field: string): string[] {
  const out = new Set<string>();
  const { items } = sandbox.state.list('BusinessPartners', { pageSize: 10_000, pageNumber: 1 });
  const leaf = field.split('.').at(-1) ?? field;
  for (const p of items) {
    const value = p[leaf];
    if (typeof value === 'string' && value) out.add(value);
  }
  return [...out];
}

/** The action settings of the local runtime: the embedded resources, and the sandbox's partners by default. */
function localActionsConfig(options: LocalActionsOptions): ActionsConfig {
  const env: Record<string, string | undefined> = {
    ...options.env,
    [ENV.connection]: options.connection,
    [ENV.actionsIdempotencyTable]: LOCAL_RESOURCES.idempotencyTable,
    [ENV.actionsArchiveBucket]: LOCAL_RESOURCES.archiveBucket,
    [ENV.actionsStateTable]: LOCAL_RESOURCES.stateTable,
  };
  if (options.sandbox && !env[ENV.actionsEInvoicePartners] && !env[ENV.actionsEmailPartners]) {
    const field = env[ENV.actionsPartnerField] || 'BusinessPartnerAddress.IdentificationNumber';
    env[ENV.actionsEInvoicePartners] = sandboxEInvoicePartners(options.sandbox, field).join(',');
  }
  return loadActionsConfig(env);
}

/** The ports every action's dependencies are built from, on the embedded servers. */
function localPorts(
  options: LocalActionsOptions,
  config: ActionsConfig,
  publisher: EventPublisher,
): ActionPorts<ActionResource> {
  const { api, stores, logger, clock } = options;
  const dynamoDb = stores.servers.dynamoDb;
  return actionPorts(
    { config, api, publisher, clock, logger, isdocSchema: createLazyIsdocSchema() },
    {
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
    },
  );
}

/** The scheduled actions the settings switch on, each one pass at a time; a failed pass is logged. */
function localSchedules(config: ActionsConfig, ports: ActionPorts<ActionResource>, logger: Logger) {
  const passes = scheduledActionDefinitions
    .filter((action) => action.schedules(config).length > 0)
    .map((action) => ({ name: action.name, pass: action.run(action.deps(ports)) }));
  let running: Promise<void> | undefined;
  const runOnce = async () => {
    for (const { name, pass } of passes) {
      await pass().catch((error: unknown) => {
        logger.warn('scheduled action failed', {
          action: name,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }
  };
  return {
    any: passes.length > 0,
    async run() {
      running ??= runOnce().finally(() => {
        running = undefined;
      });
      await running;
    },
    settled: () => running,
  };
}

export async function startLocalActions(options: LocalActionsOptions): Promise<LocalActions> {
  const { logger } = options;
  const config = localActionsConfig(options);
  let bound: BindablePublisher | undefined;
  const publisher: EventPublisher = {
    publish(events: readonly BusEvent[]) {
      if (!bound) throw new Error('local actions: no publisher bound');
      return bound.publish(events);
    },
  };
  const ports = localPorts(options, config, publisher);
  const entries = new Map<string, ActionEntry>(
    eventActions.map((a) => [
      a.name,
      createActionEntry(a.name, logger, a.run(a.deps(ports)), {
        source: config.eventSource,
        connection: config.connection,
      }),
    ]),
  );
  const schedules = localSchedules(config, ports, logger);
  let timer: NodeJS.Timeout | undefined;
  const runScheduled = async () => {
    if (bound) await schedules.run();
  };
  const stopTimers = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  return {
    routes: buildRoutes(config),
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
    startTimers(intervalMs) {
      if (!schedules.any || timer) return;
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
