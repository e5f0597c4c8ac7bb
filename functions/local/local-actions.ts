/**
 * Every action of the routing table, run in process: the local bus delivers each matched event to
 * the handler's own entry (`createEventEntry`), which its SQS handler calls per record, with the
 * idempotency guard on the embedded DynamoDB and the archive on the embedded S3. The e-invoice
 * status tracker, a scheduled function on AWS, runs on a timer.
 */

import type { Sandbox } from '../../sandbox/index.js';
import type { AccountingApi } from '../accounting/api.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '../adapters/aws/powertools-idempotency-guard.js';
import type { EventBridgeEvent } from '../adapters/local/local-bus.js';
import { type ActionsConfig, loadActionsConfig } from '../core/actions/config.js';
import type { DeadLetterSink } from '../core/actions/dead-letter-sink.js';
import type { OpenSendings } from '../core/actions/einvoice-tracking.js';
import type { ActionEntry } from '../core/actions/run-action.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../core/ports.js';
import { buildRoutes, type Route } from '../core/routes.js';
import { createEventEntry as archiveEntry } from '../handlers/archive-isdoc.js';
import { createEventEntry as sendEntry } from '../handlers/send-invoice.js';
import { createHandler as createTrackHandler } from '../handlers/track-einvoices.js';
import { createEventEntry as transferEntry } from '../handlers/transfer-documents.js';
import { ENV } from '../shared/env-names.js';
import { LOCAL_RESOURCES, type LocalStores } from './local-stores.js';

export interface LocalActions {
  readonly routes: Route[];
  readonly config: ActionsConfig;
  /**
   * Late binding: the bus is built after the actions (it needs their routes). A publisher with
   * per-route dead-letter sinks (the local bus) also receives invalid events on their first delivery.
   */
  bindPublisher(publisher: EventPublisher & { deadLetterSink?(routeId: string): DeadLetterSink }): void;
  deliver(route: Route, event: EventBridgeEvent): Promise<void>;
  /** Runs the scheduled actions (e-invoice tracker) once. */
  runScheduled(): Promise<void>;
  startTimers(intervalMs: number): void;
  stopTimers(): void;
  close(): Promise<void>;
}

/**
 * Thrown to the bus for an event that failed its schema when it could not be sent to the route's
 * dead-letter sink (or there is none): the bus retries it and then dead-letters it.
 */
export class InvalidDeliveryError extends Error {
  override readonly name = 'InvalidDeliveryError';
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

export async function startLocalActions(options: {
  api: AccountingApi;
  stores: LocalStores;
  env: Record<string, string | undefined>;
  connection: string;
  sandbox: Sandbox | undefined;
  logger: Logger;
  clock: Clock;
}): Promise<LocalActions> {
  const { api, stores, logger, clock } = options;
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
  const config = loadActionsConfig(env);
  const routes = buildRoutes(config);

  let bound: EventPublisher | undefined;
  let deadLetterSink: ((routeId: string) => DeadLetterSink) | undefined;
  const publisher: EventPublisher = {
    publish(events: readonly BusEvent[]) {
      if (!bound) throw new Error('local actions: no publisher bound');
      return bound.publish(events);
    },
  };
  const guard = createPowertoolsGuard({
    client: stores.servers.dynamoDb,
    tableName: LOCAL_RESOURCES.idempotencyTable,
    expiresAfterSeconds: config.idempotency.expiresAfterSeconds,
  });
  const sendings = createDynamoDbCheckpointStore<OpenSendings>({
    client: stores.servers.dynamoDb,
    tableName: LOCAL_RESOURCES.stateTable,
  });

  // The handlers' own entries for one EventBridge event (what their SQS handlers call per record).
  const entries: Record<string, ActionEntry> = {
    'transfer-documents': transferEntry({ api, publisher, clock, logger, guard, config }),
    'archive-isdoc': archiveEntry({ api, objects: stores.archive, publisher, clock, logger, config }),
    'send-invoice': sendEntry({ api, publisher, clock, logger, guard, sendings, config }),
  };
  const track = createTrackHandler({
    api,
    sendings,
    publisher,
    clock,
    logger,
    connection: options.connection,
  });

  const tracking = config.sending.einvoicePartners.length > 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const runScheduled = async () => {
    if (!tracking || !bound) return;
    running ??= track()
      .then(() => undefined)
      .catch((error: unknown) => {
        logger.warn('e-invoice tracking failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        running = undefined;
      });
    await running;
  };

  const stopTimers = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  return {
    routes,
    config,
    bindPublisher(p) {
      bound = p;
      deadLetterSink = p.deadLetterSink?.bind(p);
    },
    async deliver(route, event) {
      const entry = entries[route.handler];
      if (!entry) throw new InvalidDeliveryError(`no local entry for handler '${route.handler}'`);
      const result = await entry(event, { remainingTimeMs: route.timeoutSeconds * 1000 });
      if (result.status !== 'invalid') return;
      // Like the SQS handler: dead-lettered on this first delivery, never retried.
      if (!deadLetterSink) throw new InvalidDeliveryError(result.reason);
      try {
        await deadLetterSink(route.id).send(JSON.stringify(event), {
          action: route.handler,
          reason: result.reason,
          messageId: event.id,
        });
      } catch (error) {
        logger.warn('dead-letter send failed, left to the bus retries', {
          action: route.handler,
          eventId: event.id,
          error: error instanceof Error ? error.message : String(error),
        });
        throw new InvalidDeliveryError(result.reason, { cause: error });
      }
    },
    runScheduled,
    startTimers(intervalMs) {
      if (!tracking || timer) return;
      timer = setInterval(() => void runScheduled(), Math.max(250, intervalMs));
      timer.unref();
    },
    stopTimers,
    async close() {
      stopTimers();
      await running;
    },
  };
}
