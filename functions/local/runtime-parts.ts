/**
 * The pieces `startRuntime` wires, each started in order and closed in reverse: the service (the
 * sandbox in-process, or the configured one), the embedded stores, the connections (one, the
 * sandbox's companies, or a registry file), the bus with its journal, subscribers and actions, and
 * the intake.
 */
import { join } from 'node:path';
import type { Sandbox } from '#sandbox/index.js';
import { openFileJournal } from '../adapters/local/bus-journal.js';
import { type DeadLetterStore, openFileDeadLetterStore } from '../adapters/local/dead-letter-store.js';
import { createLocalBus, type EventBridgeEvent, type LocalBus } from '../adapters/local/local-bus.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';
import type { Clock, Logger } from '../core/ports.js';
import { ENV } from '../shared/env-names.js';
import { loadPollerSettings, type PollerSettings } from '../wiring/poller-config.js';
import { httpDeliverySubscribers } from './delivery-subscriber.js';
import { type EventsOut, openEventsOut } from './events-out.js';
import type { HttpDelivery } from './http-delivery.js';
import { SharedSigningSecretError } from './http-delivery.js';
import type { LocalActions } from './local-actions.js';
import { type LocalConnections, openLocalConnections } from './local-connections.js';
import { type LocalIntake, startLocalIntake } from './local-intake.js';
import { LOCAL_RESOURCES, type LocalStores, startLocalStores } from './local-stores.js';
import { accountingConfigFor, BUS_DIR, DEAD_LETTERS_FILE, type RuntimeOptions } from './runtime-options.js';
import { connectionOfUrl, LocalRuntimeConfigError } from './runtime-settings.js';
import { outcomeNote, type RuntimeUpdate } from './runtime-update.js';
import { probeService } from './service-probe.js';

/** Pause of the local bus between receives of a failed delivery (unless the error says how long). */
const RETRY_DELAY_MS = 1000;

export interface RuntimeContext {
  emit: (update: RuntimeUpdate) => void;
  logger: Logger;
  clock: Clock;
  /** Closes what was started, last first. */
  onClose(close: () => Promise<void>): void;
}

/** Errors of a setting, as the runtime's configuration error (exit code 2). */
export function configError<T>(read: () => T, prefix = ''): T {
  try {
    return read();
  } catch (error) {
    throw new LocalRuntimeConfigError(`${prefix}${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/** 1. The service: the sandbox in-process (`--companies N`: with N companies), or none. */
export async function startService(
  options: RuntimeOptions,
  ctx: RuntimeContext,
): Promise<Sandbox | undefined> {
  if (options.sandbox === false) {
    if (options.connectionsFile === undefined) await probeConfiguredService(options);
    return undefined;
  }
  const given = typeof options.sandbox === 'object' ? options.sandbox : {};
  if (given.instance) return given.instance;
  const { startSandbox } = await import('#sandbox/index.js');
  const sandbox = await startSandbox({
    activity: {
      enabled: true,
      ratePerSecond: 0.5,
      // Payments too, so a two-minute run shows each payment event (Paid, PartiallyPaid, Overdue).
      weights: { createOrder: 0.35, editDocument: 0.15, issueInvoice: 0.2, payInvoice: 0.3 },
    },
    ...(given.options ?? {}),
    ...(options.companies !== undefined ? { companies: options.companies } : {}),
  });
  ctx.onClose(() => sandbox.close());
  return sandbox;
}

/** Off the sandbox, a service that does not answer fails the start at once, in one line. */
async function probeConfiguredService(options: RuntimeOptions): Promise<void> {
  const config = configError(() => accountingConfigFor(options, undefined));
  const flag = options.baseUrl !== undefined ? '--base-url' : ENV.baseUrl;
  await probeService(config.baseUrl, flag);
}

/** 2. Embedded stores, data under the data directory. */
export async function openStores(options: RuntimeOptions, ctx: RuntimeContext): Promise<LocalStores> {
  const stores = await startLocalStores(options.dataDir, options.command);
  ctx.onClose(() => stores.close());
  if (stores.recoveredLock) {
    const { pid, since } = stores.recoveredLock;
    ctx.emit({
      kind: 'warning',
      message: `recovered a stale lock on ${stores.dataDir} (process ${pid}, since ${since}, is not running: it did not stop cleanly); resuming from the saved state`,
    });
  }
  if (stores.tornObjects.length > 0) {
    ctx.emit({
      kind: 'warning',
      message: `removed ${stores.tornObjects.length} object(s) the stopped process left half written (${stores.tornObjects.join(', ')}); their actions write them again`,
    });
  }
  return stores;
}

/** 3. The connections: one as configured, the sandbox's companies, or the registry file. */
export async function openConnections(
  options: RuntimeOptions,
  sandbox: Sandbox | undefined,
  settings: PollerSettings,
  ctx: RuntimeContext,
): Promise<LocalConnections> {
  const connections = await openLocalConnections({
    env: options.env,
    clock: ctx.clock,
    logger: ctx.logger,
    emit: ctx.emit,
    settings,
    intervalMs: options.intervalMs,
    intervalFromFlag: options.intervalFromFlag,
    collections: options.collections,
    connectionsFile: options.connectionsFile,
    companies: options.companies,
    sandbox,
    configured: () => configError(() => accountingConfigFor(options, sandbox)),
    configuredName: (config) => (sandbox ? 'sandbox' : connectionOfUrl(config.baseUrl)),
  });
  ctx.onClose(() => connections.close());
  return connections;
}

/** The poller's settings from the environment (POLLER_*), as on AWS; flags and the sandbox win. */
export function pollerSettingsOf(env: RuntimeOptions['env']): PollerSettings {
  return configError(() => loadPollerSettings(env));
}

export interface BusParts {
  bus: LocalBus;
  deliveries: HttpDelivery | undefined;
  /** Where the bus keeps its dead letters (the data directory's file). */
  deadLetterStore: DeadLetterStore;
}

/** 4. Events out, HTTP consumers, the bus and its journal (under the data directory). */
export async function openBus(
  options: RuntimeOptions,
  ctx: RuntimeContext,
  stores: LocalStores,
  actions: LocalActions | undefined,
  source: string,
  /** Whether the view names each event's connection (more than one). */
  named: () => boolean,
): Promise<BusParts> {
  let eventsOut: EventsOut | undefined;
  if (options.eventsOut) {
    const out = await openEventsOut(options.eventsOut);
    eventsOut = out;
    ctx.onClose(() => out.close());
  }
  // HTTP consumers (`--deliver-to`): one bus subscriber each, with its own journal offset.
  const deliveries = options.deliverTo?.length
    ? await httpDeliverySubscribers({
        targets: options.deliverTo,
        env: options.env,
        dataDir: stores.dataDir,
        ...(options.deliveryPolicy ? { policy: options.deliveryPolicy } : {}),
        emit: ctx.emit,
      }).catch((error: unknown) => {
        if (!(error instanceof SharedSigningSecretError)) throw error;
        throw new LocalRuntimeConfigError(error.message, { cause: error });
      })
    : undefined;
  const journal = await openFileJournal(join(stores.dataDir, BUS_DIR));
  ctx.onClose(() => journal.close());
  const deadLetterStore = openFileDeadLetterStore(join(stores.dataDir, BUS_DIR, DEAD_LETTERS_FILE));
  const bus = createLocalBus({
    routes: actions?.routes ?? [],
    deliver: (route, event) => (actions ? actions.deliver(route, event) : Promise.resolve()),
    subscribers: [...(eventsOut ? [eventsOut] : []), ...(deliveries?.subscribers ?? [])],
    journal,
    deadLetterStore,
    logger: ctx.logger,
    clock: ctx.clock,
    // Like a queue's visibility timeout, shortened: a transient failure gets a moment to pass.
    retryDelayMs: RETRY_DELAY_MS,
    source,
  });
  ctx.onClose(() => bus.close());
  actions?.bindPublisher(bus);
  reportBusUpdates(bus, ctx, named);
  return { bus, deliveries, deadLetterStore };
}

/** The document number an event names, if any. */
function documentNumberOf(detail: Record<string, unknown>): string | undefined {
  const record = detail.record as Record<string, unknown> | undefined;
  return (
    (typeof record?.DocumentNumber === 'string' && record.DocumentNumber) ||
    (typeof detail.documentNumber === 'string' && detail.documentNumber) ||
    ((detail.source as { documentNumber?: unknown } | undefined)?.documentNumber as string | undefined) ||
    undefined
  );
}

/** Every published event and every failed delivery, as updates for the view. */
function reportBusUpdates(bus: LocalBus, ctx: RuntimeContext, named: () => boolean): void {
  bus.onEvent((event: EventBridgeEvent) => {
    const detail = (event.detail ?? {}) as Record<string, unknown>;
    ctx.emit({
      kind: 'event',
      detailType: event['detail-type'],
      id: typeof detail.id === 'string' ? detail.id : event.id,
      documentNumber: documentNumberOf(detail),
      note: outcomeNote(event['detail-type'], detail),
      modifiedDate: typeof detail.modifiedDate === 'string' ? detail.modifiedDate : undefined,
      ...(named() && typeof detail.connection === 'string' ? { connection: detail.connection } : {}),
      at: ctx.clock.now(),
    });
  });
  bus.onDelivery((outcome) => {
    if (outcome.status === 'delivered') return;
    ctx.emit({
      kind: 'action',
      route: outcome.routeId,
      ok: false,
      detailType: outcome.detailType,
      id: outcome.eventId,
      message: `${outcome.status} after receive ${outcome.attempt}: ${outcome.error}`,
    });
  });
}

/** 5. The e-shop order intake (`run --intake-port`): orders go into the connections of the registry. */
export async function openIntake(
  options: RuntimeOptions,
  ctx: RuntimeContext,
  parts: {
    connections: LocalConnections;
    stores: LocalStores;
    bus: LocalBus;
    /** The connection `/intake/{source}` means, unless `named`. */
    primary: ConnectionEntry;
    /** Many connections: each order's path names its connection (`/intake/{connection}/{source}`). */
    named: boolean;
  },
): Promise<LocalIntake | undefined> {
  if (!options.intake) return undefined;
  const { port } = options.intake;
  const intake = await startLocalIntake({
    ...options.intake,
    connections: parts.connections,
    idempotency: { client: parts.stores.servers.dynamoDb, tableName: LOCAL_RESOURCES.idempotencyTable },
    orderStore: parts.stores.archive,
    publisher: parts.bus,
    env: options.env,
    connection: parts.primary,
    ownConnection: !parts.named,
    clock: ctx.clock,
    logger: ctx.logger,
  }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
    throw new LocalRuntimeConfigError(`--intake-port: cannot listen on 127.0.0.1:${port} (${code})`, {
      cause: error,
    });
  });
  ctx.onClose(() => intake.close());
  return intake;
}
