/**
 * Action throughput: the events of a seeded sandbox are collected by our poller, then the ones the
 * routing table sends to the transfer and ISDOC-archive actions are delivered to the local action
 * entries (embedded DynamoDB for idempotency, embedded S3 for the archive), at each route's
 * `maxConcurrency`, exactly as the local bus would.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccountingClient } from '../functions/accounting/client.js';
import { defaultPolledCollections } from '../functions/accounting/collections.js';
import { parseAccountingConfig } from '../functions/accounting/config.js';
import type { EventBridgeEvent } from '../functions/adapters/local/local-bus.js';
import type { DetailType } from '../functions/core/event-catalog.js';
import { matchesPattern } from '../functions/core/event-pattern.js';
import type { BusEvent } from '../functions/core/ports.js';
import type { Route } from '../functions/core/routes.js';
import { oneLocalConnection, startLocalActions } from '../functions/local/local-actions.js';
import { startLocalStores } from '../functions/local/local-stores.js';
import { systemClock } from '../functions/shared/clock.js';
import { startSandbox } from '../sandbox/index.js';
import { createBenchPoller, silentLogger } from './poller-deps.js';
import { round } from './stats.js';

function toEventBridge(e: BusEvent): EventBridgeEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': e.detailType,
    source: e.source,
    account: '000000000000',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'local',
    resources: [],
    detail: JSON.parse(JSON.stringify(e.detail)),
  };
}

/** Delivers `events` to `route` with at most `route.maxConcurrency` in flight; resolves to seconds taken. */
async function deliverAll(
  route: Route,
  events: EventBridgeEvent[],
  deliver: (route: Route, event: EventBridgeEvent) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < events.length) {
      const event = events[next++]!;
      await deliver(route, event);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, route.maxConcurrency) }, worker));
  return (performance.now() - started) / 1000;
}

export async function measureActions(options: {
  quick: boolean;
  log: (line: string) => void;
}): Promise<{ isdocArchivesPerSecond: number; transfersPerSecond: number }> {
  const sandbox = await startSandbox({
    sizes: { documents: options.quick ? 800 : 2500, partners: 40, perCollection: {} },
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-bench-'));
  const stores = await startLocalStores(dataDir);
  const api = createAccountingClient(
    parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey }),
    { logger: silentLogger },
  );
  try {
    const collected: BusEvent[] = [];
    const poller = createBenchPoller({
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.credentials.apiKey,
      collections: defaultPolledCollections,
      pageSize: 100,
      poll: { reconcileIntervalMs: 0 },
      onEvents: (events) => collected.push(...events),
    });
    while ((await poller.cycle()).more) {}
    await poller.close();

    const actions = await startLocalActions({
      connections: oneLocalConnection({ name: 'bench', api }),
      stores,
      logger: silentLogger,
      clock: systemClock,
    });
    const outcomes: Partial<Record<DetailType, number>> = {};
    actions.bindPublisher({
      async publish(events) {
        for (const e of events) outcomes[e.detailType] = (outcomes[e.detailType] ?? 0) + 1;
      },
    });
    const events = collected.map(toEventBridge);
    const routeOf = (id: string) => actions.routes.find((r) => r.id === id)!;
    const transfer = routeOf('transfer-received-order');
    const archive = routeOf('archive-isdoc');
    const forTransfer = events.filter((e) => matchesPattern(transfer.pattern, e));
    const forArchive = events.filter((e) => matchesPattern(archive.pattern, e));

    const transferSeconds = await deliverAll(transfer, forTransfer, actions.deliver);
    const transferred = outcomes['ReceivedOrder.Transferred'] ?? 0;
    const archiveSeconds = await deliverAll(archive, forArchive, actions.deliver);
    const archived =
      (outcomes['IssuedInvoice.IsdocArchived'] ?? 0) + (outcomes['IssuedAdvanceInvoice.IsdocArchived'] ?? 0);
    await actions.close();
    options.log(
      `actions: ${transferred}/${forTransfer.length} transfers in ${round(transferSeconds, 2)} s (concurrency ${transfer.maxConcurrency}), ${archived}/${forArchive.length} ISDOC archives in ${round(archiveSeconds, 2)} s (concurrency ${archive.maxConcurrency})`,
    );
    return {
      transfersPerSecond: round(transferred / transferSeconds, 1),
      isdocArchivesPerSecond: round(archived / archiveSeconds, 1),
    };
  } finally {
    await api.close();
    await stores.close();
    await sandbox.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
