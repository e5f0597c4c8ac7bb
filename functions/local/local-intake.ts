/**
 * The e-shop order intake in the local runtime (`run --intake-port N`): the same endpoint use case
 * and import entry the Lambdas run, on node:http and an in-process FIFO-like queue, with the
 * intake records in the embedded DynamoDB beside the actions' idempotency records.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoDbImportAttempts } from '../adapters/aws/dynamodb-import-attempts.js';
import { createPowertoolsGuard } from '../adapters/aws/powertools-idempotency-guard.js';
import { shoptetApiOf } from '../adapters/http/shoptet-api.js';
import { createLocalIntakeQueue, type LocalIntakeQueue } from '../adapters/local/local-intake-queue.js';
import type { EntryResult } from '../core/actions/run-action.js';
import { connectionEventSource } from '../core/connection.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import { type IntakeConfig, loadIntakeConfig } from '../core/intake/intake-config.js';
import { registryIntakeConnections } from '../core/intake/intake-connections.js';
import type { ShoptetApi } from '../core/intake/ports.js';
import { type IntakeSource, intakeSources, type QueuedIntakeMessage } from '../core/intake/shop-order.js';
import type { SweepResult } from '../core/intake/shoptet-sweep.js';
import type { Clock, EventPublisher, Logger, ObjectStore } from '../core/ports.js';
import { ENV } from '../shared/env-names.js';
import { connectionImports, createImportEntry } from '../wiring/connection-imports.js';
import type { LocalConnections } from './local-connections.js';
import { createIntakeHttpServerFor } from './local-intake-server.js';
import { startLocalShoptetSweep } from './local-shoptet-sweep.js';

export interface LocalIntake {
  /** Base URL; sources post to `<url>/intake/<connection>/<source>`, or `<url>/intake/<source>` (the connection of `connection`). */
  readonly url: string;
  readonly port: number;
  /** Sources with a secret (the others answer 404). */
  readonly sources: readonly IntakeSource[];
  /** Many connections: `/intake/<source>` means none, each path names its connection. */
  readonly named: boolean;
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

export interface LocalIntakeOptions {
  port: number;
  host?: string;
  /** The registry whose connections' orders it imports, and their clients. */
  connections: Pick<LocalConnections, 'registry' | 'apiFor'>;
  /** Where the intake records live (the local runtime: its idempotency table in dynalite). */
  idempotency: { client: DynamoDBClient; tableName: string };
  publisher: EventPublisher;
  env: Record<string, string | undefined>;
  /** The connection `/intake/<source>` means (`/intake/<connection>/<source>` names any of the registry). */
  connection: ConnectionEntry;
  /** `false`: a run of many, where `/intake/<source>` means none (the connection must be named). */
  ownConnection?: boolean;
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
}

/** The queue of received orders and the importer it feeds: the import entry the Lambda runs. */
function createImporterQueue(
  options: LocalIntakeOptions,
  config: IntakeConfig,
  shoptet: ShoptetApi | undefined,
) {
  const { clock, logger, publisher } = options;
  const expiresAfterSeconds = Number(options.env[ENV.actionsIdempotencyExpiresSeconds]) || 7 * 24 * 3600;
  const guard = createPowertoolsGuard({
    client: options.idempotency.client,
    tableName: options.idempotency.tableName,
    expiresAfterSeconds,
  });
  const attempts = createDynamoDbImportAttempts({ ...options.idempotency, expiresAfterSeconds, clock });
  // The import reads the connection a message names from the registry, with that connection's client.
  const { registry, apiFor } = options.connections;
  const entry = createImportEntry(
    connectionImports(
      { guard, attempts, publisher, clock, logger, config, shoptet },
      { registry, clients: { apiFor }, clock, referenceCacheSeconds: config.referenceCacheSeconds },
    ),
    options.orderStore,
  );
  return createLocalIntakeQueue({
    handle: (message) => entry(message, { remainingTimeMs: 60_000 }),
    clock,
    logger,
    ...(options.onResult ? { onResult: options.onResult } : {}),
    ...(options.gate ? { gate: options.gate } : {}),
  });
}

export async function startLocalIntake(options: LocalIntakeOptions): Promise<LocalIntake> {
  const { clock, logger, publisher } = options;
  const config = loadIntakeConfig({
    ...options.env,
    [ENV.connection]: options.connection.name,
    [ENV.eventSource]: connectionEventSource(options.connection),
  });
  const shoptet = shoptetApiOf(config.shoptet, clock.sleep);
  const queue = createImporterQueue(options, config, shoptet);
  const server = await createIntakeHttpServerFor({
    port: options.port,
    ...(options.host ? { host: options.host } : {}),
    deps: {
      config,
      connections: registryIntakeConnections(
        options.connections.registry,
        options.ownConnection === false ? undefined : config.connection,
      ),
      queue,
      publisher,
      clock,
      logger,
      ...(options.orderStore ? { orderStore: options.orderStore } : {}),
    },
  });
  const sweep = startLocalShoptetSweep({
    shoptet,
    config,
    idempotency: options.idempotency,
    queue,
    clock,
    logger,
    intakeUrl: server.url,
  });
  return {
    url: server.url,
    port: server.port,
    sources: intakeSources.filter((s) => config.secrets[s] !== undefined),
    named: options.ownConnection === false,
    config,
    queue,
    sweepShoptet: sweep.run,
    async close() {
      await sweep.stop();
      await server.close();
      await queue.drain();
    },
  };
}
