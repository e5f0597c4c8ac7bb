/**
 * `npm run bench:intake [-- --quick]` — the e-shop order intake locally: how fast the endpoint
 * answers 202 to signed Shopify webhooks (p50/p95/p99 of the client-observed latency, sequential
 * and with 8 in flight) and how fast the queued orders become received orders in the sandbox
 * (imports per second, through the client, with the intake records in dynalite). Prints the
 * figures and writes `bench/results/intake.json` (`--quick`: `quick-intake.json`, git-ignored).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAccountingClient } from '../functions/accounting/client.js';
import { DEFAULT_SERVICE_VARIANT } from '../functions/accounting/collections.js';
import { parseAccountingConfig } from '../functions/accounting/config.js';
import {
  createIdempotencyTable,
  startEmbeddedServers,
} from '../functions/adapters/local/embedded-servers.js';
import { parseConnectionEntry } from '../functions/core/connections/connection-entry.js';
import type { BusEvent } from '../functions/core/ports.js';
import { sampleOrder } from '../functions/local/intake-samples.js';
import { postSignedOrder } from '../functions/local/intake-send.js';
import { startLocalIntake } from '../functions/local/local-intake.js';
import { systemClock } from '../functions/shared/clock.js';
import { registryOfOne } from '../functions/wiring/connection-clients.js';
import { startSandbox } from '../sandbox/index.js';
import { percentile, round } from './stats.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({ options: { quick: { type: 'boolean' }, out: { type: 'string' } } });
const quick = flags.quick === true;
const outFile = flags.out ?? join(root, 'bench', 'results', quick ? 'quick-intake.json' : 'intake.json');
const SECRET = 'bench-shopify-secret-0123456789';
const log = (line: string) => process.stderr.write(`[bench:intake] ${line}\n`);

async function main(): Promise<void> {
  const orders = quick ? 200 : 600;
  const sandbox = await startSandbox({ sizes: { documents: 300, partners: 40, perCollection: {} } });
  const servers = await startEmbeddedServers();
  await createIdempotencyTable(servers.dynamoDb, 'bench-intake');
  const api = createAccountingClient(
    parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey }),
  );
  const connection = parseConnectionEntry({
    name: 'bench',
    variant: DEFAULT_SERVICE_VARIANT,
    credentialsSecret: 'deployment',
  });
  const imported: number[] = [];
  const publisher = {
    async publish(events: readonly BusEvent[]) {
      for (const e of events) if (e.detailType === 'EshopOrder.Imported') imported.push(performance.now());
    },
  };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  // Phase 1 holds the imports back, so the endpoint is measured alone; phase 2 runs both.
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const intake = await startLocalIntake({
    port: 0,
    connections: registryOfOne(connection, api),
    idempotency: { client: servers.dynamoDb, tableName: 'bench-intake' },
    publisher,
    env: { INTAKE_SHOPIFY_SECRET: SECRET },
    connection,
    clock: systemClock,
    logger: quiet,
    gate: () => gate,
  });
  const before = sandbox.state.counts().ReceivedOrders ?? 0;
  try {
    const send = (n: number) =>
      postSignedOrder({
        baseUrl: intake.url,
        source: 'shopify',
        secret: SECRET,
        body: JSON.stringify(sampleOrder('shopify', n)),
      });
    // Warm-up: connections, JIT, the reference cache.
    for (let i = 0; i < 20; i += 1) await send(900_000 + i);
    await intake.queue.drain();
    imported.length = 0;

    gate = new Promise((resolve) => {
      release = resolve;
    });
    const alone: number[] = [];
    for (let i = 0; i < orders / 2; i += 1) {
      const r = await send(500_000 + i);
      if (r.status !== 202) throw new Error(`expected 202, got ${r.status}`);
      alone.push(r.ms);
    }
    release();
    gate = Promise.resolve();
    await intake.queue.drain();
    imported.length = 0;
    const createdBefore = sandbox.state.counts().ReceivedOrders ?? 0;

    const sequential: number[] = [];
    const started = performance.now();
    for (let i = 0; i < orders / 2; i += 1) {
      const r = await send(i);
      if (r.status !== 202) throw new Error(`expected 202, got ${r.status}`);
      sequential.push(r.ms);
    }
    const concurrent: number[] = [];
    let next = orders / 2;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < orders) {
          const r = await send(next++);
          if (r.status !== 202) throw new Error(`expected 202, got ${r.status}`);
          concurrent.push(r.ms);
        }
      }),
    );
    const accepted = performance.now();
    await intake.queue.drain();
    const done = performance.now();
    const created = (sandbox.state.counts().ReceivedOrders ?? 0) - createdBefore;
    const createdAlone = createdBefore - before - 20;
    const all = [...sequential, ...concurrent];
    const results = {
      node: process.version,
      cpus: `${availableParallelism()} × ${cpus()[0]?.model ?? '?'}`,
      orders,
      endpointAlone202: {
        p50Ms: round(percentile(alone, 50), 1),
        p95Ms: round(percentile(alone, 95), 1),
        p99Ms: round(percentile(alone, 99), 1),
      },
      withImports202: {
        p50Ms: round(percentile(all, 50), 1),
        p95Ms: round(percentile(all, 95), 1),
        p99Ms: round(percentile(all, 99), 1),
      },
      sequential202: {
        p50Ms: round(percentile(sequential, 50), 1),
        p95Ms: round(percentile(sequential, 95), 1),
      },
      concurrent8x202: {
        p50Ms: round(percentile(concurrent, 50), 1),
        p95Ms: round(percentile(concurrent, 95), 1),
      },
      acceptPerSecond: round(orders / ((accepted - started) / 1000), 0),
      importedOrders: imported.length,
      createdReceivedOrders: created,
      importSeconds: round((done - started) / 1000, 2),
      importsPerSecond: round(imported.length / ((done - started) / 1000), 1),
    };
    log(JSON.stringify(results));
    if (imported.length !== orders || created !== orders || createdAlone !== orders / 2) {
      throw new Error(
        `expected ${orders} imported orders, got ${imported.length} events and ${created} orders`,
      );
    }
    await mkdir(dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`);
    log(`wrote ${outFile}`);
  } finally {
    await intake.close();
    await api.close();
    await servers.close();
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
