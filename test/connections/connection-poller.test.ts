/**
 * The poller of shards in one process, as on Lambda: the DynamoDB registry split into scan segments
 * (dynalite), each shard's lease, checkpoints and health in dynalite, the sandbox serving one company
 * per connection. Which connections are due in a minute; every connection polled once per cycle over
 * the shards; a shard whose lease is held polls nothing; refused or missing credentials make one
 * connection unhealthy and the others publish; a malformed item is skipped and counted; an idle
 * cycle writes nothing but the shards' leases.
 */
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createDynamoDbConnectionRegistry } from '#functions/adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbShardLease } from '#functions/adapters/aws/dynamodb-shard-lease.js';
import { createCheckpointCache } from '#functions/core/connections/checkpoint-cache.js';
import {
  type ConnectionEntry,
  credentialsVariableOf,
  parseConnectionEntry,
} from '#functions/core/connections/connection-entry.js';
import { dueConnections, isDue } from '#functions/core/connections/shard.js';
import { parseDetail } from '#functions/core/event-catalog.js';
import type { BusEvent } from '#functions/core/ports.js';
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import { pollShardCycle, type ShardCycle } from '#functions/handlers/poll-connections.js';
import { createManualClock } from '#functions/shared/clock.js';
import { createConnectionClients } from '#functions/wiring/connection-clients.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { recordingLogger } from '../actions/support.js';
import { startTestServers, type TestServers } from '../support/embedded.js';

const clock = createManualClock({ start: '2026-06-01T10:00:00Z', autoAdvance: true });
let sandbox: Sandbox;
let servers: TestServers;

beforeAll(async () => {
  [sandbox, servers] = await Promise.all([
    startSandbox({ clock, seed: 3, companies: 6, sizes: { documents: 30, partners: 6 } }),
    startTestServers(),
  ]);
});
afterAll(async () => {
  await sandbox?.close();
  await servers?.close();
});

const entryOf = (name: string, more: Partial<ConnectionEntry> = {}): ConnectionEntry =>
  parseConnectionEntry({
    name,
    variant: 'sk',
    baseUrl: sandbox.baseUrl,
    credentialsSecret: `env:${credentialsVariableOf(name)}`,
    collections: ['ReceivedOrders', 'IssuedInvoices'],
    ...more,
  });

describe('due connections', () => {
  it('a 60 s interval is due every minute; 300 s once in five; paused never', () => {
    const slots = Array.from({ length: 60 }, (_, i) => 29_000_000 + i);
    expect(slots.filter((s) => isDue({ name: 'a', pollIntervalSeconds: 60 }, s))).toHaveLength(60);
    expect(slots.filter((s) => isDue({ name: 'a', pollIntervalSeconds: 300 }, s))).toHaveLength(12);
    const a = parseConnectionEntry({ name: 'a', variant: 'cz', credentialsSecret: 'env:A_CREDENTIALS' });
    const b = { ...a, name: 'b', paused: true };
    expect(dueConnections([a, b], 29_000_000).map((e) => e.name)).toEqual(['a']);
  });

  it('any interval: a day holds 86,400 / interval polls (±1), spread by the name', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9-]{1,20}$/),
        fc.integer({ min: 60, max: 86_400 }),
        (name, interval) => {
          const day = Array.from({ length: 1440 }, (_, i) => 29_000_000 + i);
          const due = day.filter((s) => isDue({ name, pollIntervalSeconds: interval }, s)).length;
          expect(Math.abs(due - 86_400 / interval)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** A DynamoDB client that counts the commands it sends, by name. */
function counting(client: DynamoDBClient) {
  const counts: Record<string, number> = {};
  const send = client.send.bind(client);
  const counted = Object.create(client) as DynamoDBClient;
  counted.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
    const name = command.constructor.name.replace(/Command$/, '');
    counts[name] = (counts[name] ?? 0) + 1;
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as DynamoDBClient['send'];
  const reset = () => {
    for (const k of Object.keys(counts)) delete counts[k];
  };
  return { client: counted, counts, reset };
}

async function harness(keys: Record<string, number | 'refused' | 'missing'>) {
  const db = counting(servers.dynamoDb);
  const [registryTable, checkpointsTable] = await Promise.all([
    servers.connectionTable(),
    servers.checkpointTable(),
  ]);
  const registry = createDynamoDbConnectionRegistry({ client: db.client, tableName: registryTable });
  for (const name of Object.keys(keys)) await registry.add(entryOf(name));
  const events: BusEvent[] = [];
  const logger = recordingLogger();
  const clients = createConnectionClients({
    build: async (e) => {
      const key = keys[e.name];
      if (key === 'missing') throw parseAccountingConfigError();
      return createAccountingClient(
        parseAccountingConfig({
          baseUrl: e.baseUrl,
          apiKey: key === 'refused' ? 'not-the-key' : sandbox.credentialsOf(key as number).apiKey,
          variant: e.variant,
        }),
        { clock, logger },
      );
    },
  });
  const counted: Array<[string, number]> = [];
  const checkpoints = createCheckpointCache(
    createDynamoDbCheckpointStore({ client: db.client, tableName: checkpointsTable, consistentRead: false }),
  );
  const deps = {
    registry,
    lease: createDynamoDbShardLease({ client: db.client, tableName: checkpointsTable }),
    clients,
    checkpoints,
    checkpointCache: checkpoints,
    healthKnown: new Map(),
    holder: 'this-container',
    publisher: { publish: async (batch: readonly BusEvent[]) => void events.push(...batch) },
    clock,
    logger,
    metrics: {
      count: (name: string, value: number) => void counted.push([name, value]),
      milliseconds: () => {},
      flush: () => {},
    },
    settings: {
      // The change detector's requests are counted: the payment detector (on by default) is off.
      options: pollOptionsSchema
        .omit({ connection: true, variant: true, source: true })
        .parse({ payments: false }),
      concurrency: 2,
      parallel: 10,
      budgetMs: 60_000,
    },
  };
  /** One minute: every shard of `shards` invoked once. */
  const cycle = async (shards = 2): Promise<ShardCycle[]> => {
    const scheduledTime = clock.now().toISOString();
    const out: ShardCycle[] = [];
    for (let shard = 0; shard < shards; shard++) {
      out.push(await pollShardCycle(deps, { shard, shards, scheduledTime }, remaining(50_000)));
    }
    clock.advance(60_000);
    return out;
  };
  return { deps, db, events, logger, counted, cycle, registry, registryTable, close: () => clients.close() };
}

/** Missing credentials: what the client builder throws when the secret cannot be had. */
function parseAccountingConfigError(): Error {
  try {
    parseAccountingConfig({ baseUrl: 'https://x.example', variant: 'sk' });
  } catch (error) {
    return error as Error;
  }
  return new Error('expected the configuration to be refused');
}

/** A Lambda context with `ms` left, counted on the test's clock. */
function remaining(ms: number) {
  const end = clock.now().getTime() + ms;
  return { getRemainingTimeInMillis: () => end - clock.now().getTime() };
}

describe('the poller of shards', () => {
  it('polls every connection once per cycle over the shards; failures stay their own', async () => {
    const h = await harness({ alpha: 1, beta: 2, gamma: 3, delta: 4, broken: 'refused', nokey: 'missing' });
    const first = await h.cycle();
    const polled = first.flatMap((c) => c.outcomes.map((o) => o.connection)).sort();
    expect(polled).toEqual(['alpha', 'beta', 'broken', 'delta', 'gamma', 'nokey']);
    expect(first.every((c) => c.leased)).toBe(true);
    for (const name of ['alpha', 'beta', 'gamma', 'delta']) {
      const fromIt = h.events.filter((e) => e.source === `accounting.${name}`);
      expect(fromIt.length, name).toBeGreaterThan(0);
      for (const e of fromIt) expect((e.detail as { connection: string }).connection).toBe(name);
    }
    const unhealthy = h.events.filter((e) => e.detailType === 'Connection.Unhealthy');
    expect(unhealthy.map((e) => e.source).sort()).toEqual(['accounting.broken', 'accounting.nokey']);
    expect(unhealthy.find((e) => e.source === 'accounting.nokey')).toMatchObject({
      detail: { reason: 'credentials' },
    });
    expect(unhealthy.find((e) => e.source === 'accounting.broken')).toMatchObject({
      detail: { reason: 'authentication' },
    });
    for (const e of unhealthy) expect(() => parseDetail('Connection.Unhealthy', e.detail)).not.toThrow();
    // A second cycle: the unhealthy stay unhealthy without another event.
    await h.cycle();
    expect(h.events.filter((e) => e.detailType === 'Connection.Unhealthy')).toHaveLength(2);
    await h.close();
  });

  it('a shard whose lease is held polls nothing; a paused connection is not polled', async () => {
    const h = await harness({ alpha: 1, beta: 2 });
    await h.registry.setPaused('beta', true);
    const scheduledTime = clock.now().toISOString();
    const first = await pollShardCycle(h.deps, { scheduledTime }, remaining(50_000));
    expect(first).toMatchObject({ leased: true, registered: 2, paused: 1, due: 1 });
    expect(first.outcomes.map((o) => o.connection)).toEqual(['alpha']);
    // Another invocation holds the shard (a late or retried tick while it runs): nothing is polled twice.
    const now = clock.now().getTime();
    const other = await h.deps.lease.acquire({ index: 0, count: 1 }, now, now + 50_000, 'another-container');
    expect(other).toBeDefined();
    const again = await pollShardCycle(h.deps, { scheduledTime }, remaining(50_000));
    expect(again).toMatchObject({ leased: false, due: 0, outcomes: [] });
    expect(h.logger.lines.some((l) => l.message === 'shard busy')).toBe(true);
    // Given back, the shard is polled again; a lease whose holder died ends with its invocation.
    await h.deps.lease.release({ index: 0, count: 1 }, other?.token as string);
    expect((await pollShardCycle(h.deps, {}, remaining(50_000))).leased).toBe(true);
    const held = clock.now().getTime();
    await h.deps.lease.acquire({ index: 0, count: 1 }, held, held + 50_000, 'another-container');
    expect((await pollShardCycle(h.deps, {}, remaining(50_000))).leased).toBe(false);
    clock.advance(60_000);
    expect((await pollShardCycle(h.deps, {}, remaining(50_000))).leased).toBe(true);
    await h.close();
  });

  it('skips a malformed registry item, names its key and fields, counts it; polls the others', async () => {
    const h = await harness({ alpha: 1, gamma: 2 });
    await servers.dynamoDb.send(
      new PutItemCommand({
        TableName: h.registryTable,
        Item: { name: { S: 'beta' }, variant: { S: 'xx' }, pollIntervalSeconds: { N: '60' } },
      }),
    );
    const [cycle] = await h.cycle(1);
    expect(cycle).toMatchObject({ registered: 2, malformed: 1, due: 2 });
    expect(h.logger.lines.filter((l) => l.message === 'registry item skipped')).toEqual([
      {
        level: 'error',
        message: 'registry item skipped',
        data: {
          key: 'beta',
          fields: ['variant', 'credentialsSecret'],
          problems: [expect.stringMatching(/^variant: expected one of sk, cz/), expect.any(String)],
        },
      },
    ]);
    expect(h.counted).toContainEqual(['RegistryItemsMalformed', 1]);
    await h.close();
  });

  it('an idle cycle: one request per collection, no read, no write but the shard lease, no log line per connection', async () => {
    const h = await harness({ alpha: 5, beta: 6 });
    await h.cycle(1); // the backfill
    await h.cycle(1);
    const before = sandbox.requestCounts().total;
    h.db.reset();
    const lines = h.logger.lines.length;
    const [idle] = await h.cycle(1);
    expect(idle?.outcomes.map((o) => [o.connection, o.requests, o.published])).toEqual([
      ['alpha', 2, 0],
      ['beta', 2, 0],
    ]);
    expect(sandbox.requestCounts().total - before).toBe(4);
    // Writes: the shard's lease only (taken and given back). Item reads: none — the container that
    // polled the shard last holds its checkpoints and health. (The registry's segment is read by a
    // Scan of the document client.)
    expect(h.db.counts).toEqual({ PutItem: 2 });
    // Above debug (the level of a deployment's logs), one line for the shard.
    const logged = h.logger.lines.slice(lines).filter((l) => l.level !== 'debug');
    expect(logged.map((l) => l.message)).toEqual(['shard polled']);
    // Another container polled the shard meanwhile: this one reads every checkpoint again.
    const now = clock.now().getTime();
    const other = await h.deps.lease.acquire({ index: 0, count: 1 }, now, now + 1, 'another-container');
    await h.deps.lease.release({ index: 0, count: 1 }, other?.token as string);
    h.db.reset();
    await h.cycle(1);
    expect(h.db.counts).toMatchObject({ PutItem: 2, GetItem: 6 });
    await h.close();
  });
});
