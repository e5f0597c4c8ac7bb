/**
 * The e-shop order intake in the local runtime (`run --intake-port N`): the same endpoint use case
 * and import entry the Lambdas run, on node:http and an in-process FIFO-like queue, with the
 * intake records in the embedded DynamoDB beside the actions' idempotency records.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AccountingApi } from '../accounting/api.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { createDynamoDbImportAttempts } from '../adapters/aws/dynamodb-import-attempts.js';
import { createPowertoolsGuard } from '../adapters/aws/powertools-idempotency-guard.js';
import { shoptetApiOf } from '../adapters/http/shoptet-api.js';
import { createLocalIntakeQueue, type LocalIntakeQueue } from '../adapters/local/local-intake-queue.js';
import type { EntryResult } from '../core/actions/run-action.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import { type IntakeConfig, loadIntakeConfig } from '../core/intake/intake-config.js';
import { type IntakeSource, intakeSources, type QueuedIntakeMessage } from '../core/intake/shop-order.js';
import {
  SWEEP_FIRST_LOOKBACK_SECONDS,
  SWEEP_OVERLAP_SECONDS,
  type SweepCheckpoint,
  type SweepResult,
  sweepShoptetOrders,
} from '../core/intake/shoptet-sweep.js';
import type { Clock, EventPublisher, Logger, ObjectStore } from '../core/ports.js';
import { clientOfOne, connectionImports } from '../handlers/connection-imports.js';
import { createImportEntry } from '../handlers/import-orders.js';
import { ENV } from '../shared/env-names.js';
import { createIntakeHttpServerFor } from './local-intake-server.js';

export interface LocalIntake {
  /** Base URL; sources post to `<url>/intake/<source>`. */
  readonly url: string;
  readonly port: number;
  /** Sources with a secret (the others answer 404). */
  readonly sources: readonly IntakeSource[];
  readonly config: IntakeConfig;
  readonly queue: LocalIntakeQueue;
  /**
   * Runs the Shoptet reconciliation sweep once (it also runs every `INTAKE_SHOPTET_SWEEP_SECONDS`
   * while the intake runs); undefined when Shoptet is not configured (no token or no key).
   */
  sweepShoptet(): Promise<SweepResult | undefined>;
  /** Stops accepting, then waits until every queued order was imported (or dead-lettered). */
  close(): Promise<void>;
}

export async function startLocalIntake(options: {
  port: number;
  host?: string;
  api: AccountingApi;
  /** Where the intake records live (the local runtime: its idempotency table in dynalite). */
  idempotency: { client: DynamoDBClient; tableName: string };
  publisher: EventPublisher;
  env: Record<string, string | undefined>;
  /** The one connection whose orders it imports: its registry of one (its client is `api`). */
  connection: ConnectionEntry;
  eventSource: string;
  clock: Clock;
  logger: Logger;
  /** Where orders too large for a queue message are claim-checked (the local runtime: its object store). */
  orderStore?: ObjectStore;
  /** Holds the imports back until it resolves (see the local queue's `gate`). */
  gate?: () => Promise<void>;
  onResult?: (
    message: QueuedIntakeMessage,
    result: EntryResult | { status: 'dead-lettered'; reason: string },
  ) => void;
}): Promise<LocalIntake> {
  const { api, clock, logger, publisher } = options;
  const config = loadIntakeConfig({
    ...options.env,
    [ENV.connection]: options.connection.name,
    [ENV.eventSource]: options.eventSource,
  });
  const expiresAfterSeconds = Number(options.env[ENV.actionsIdempotencyExpiresSeconds]) || 7 * 24 * 3600;
  const guard = createPowertoolsGuard({
    client: options.idempotency.client,
    tableName: options.idempotency.tableName,
    expiresAfterSeconds,
  });
  const attempts = createDynamoDbImportAttempts({ ...options.idempotency, expiresAfterSeconds, clock });
  // The import reads the connection a message names from the registry, here the one of this runtime.
  const one = options.connection;
  const registry = { get: async (name: string) => (name === one.name ? one : undefined) };
  const shoptet = shoptetApiOf(config.shoptet, clock.sleep);
  const entry = createImportEntry(
    connectionImports(
      { guard, attempts, publisher, clock, logger, config, shoptet },
      { registry, clients: clientOfOne(api), clock, referenceCacheSeconds: config.referenceCacheSeconds },
    ),
    options.orderStore,
  );
  const queue = createLocalIntakeQueue({
    handle: (message) => entry(message, { remainingTimeMs: 60_000 }),
    clock,
    logger,
    ...(options.onResult ? { onResult: options.onResult } : {}),
    ...(options.gate ? { gate: options.gate } : {}),
  });
  const server = await createIntakeHttpServerFor({
    port: options.port,
    ...(options.host ? { host: options.host } : {}),
    deps: {
      config,
      queue,
      publisher,
      clock,
      logger,
      ...(options.orderStore ? { orderStore: options.orderStore } : {}),
    },
  });
  const sweep = async (): Promise<SweepResult | undefined> => {
    if (!shoptet || !config.secrets.shoptet) return undefined;
    return sweepShoptetOrders({
      shoptet,
      // The sweep's checkpoint beside the intake records (the same table, its own key).
      checkpoints: createDynamoDbCheckpointStore<SweepCheckpoint>({
        ...options.idempotency,
        keyAttribute: 'id',
      }),
      queue,
      clock,
      logger,
      connection: config.connection,
      webhookUrl: config.shoptet.webhookUrl ?? `${server.url}/intake/shoptet`,
      reregister: config.shoptet.reregisterWebhooks,
      firstLookbackSeconds: SWEEP_FIRST_LOOKBACK_SECONDS,
      overlapSeconds: SWEEP_OVERLAP_SECONDS,
    });
  };
  let sweeping: Promise<unknown> = Promise.resolve();
  const timer =
    shoptet && config.secrets.shoptet && config.shoptet.sweepSeconds > 0
      ? setInterval(() => {
          sweeping = sweep().catch((error: unknown) =>
            logger.warn('shoptet sweep failed', { error: error instanceof Error ? error.name : 'unknown' }),
          );
        }, config.shoptet.sweepSeconds * 1000)
      : undefined;
  timer?.unref();
  return {
    url: server.url,
    port: server.port,
    sources: intakeSources.filter((s) => config.secrets[s] !== undefined),
    config,
    queue,
    sweepShoptet: sweep,
    async close() {
      if (timer) clearInterval(timer);
      await sweeping;
      await server.close();
      await queue.drain();
    },
  };
}
