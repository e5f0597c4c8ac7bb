/**
 * The fan-out end to end in one process: the dispatcher reads the registry and enqueues one poll
 * request per due connection on the FIFO stand-in; the poller handler polls each connection against
 * the sandbox with its own client and credentials, checkpoints in dynalite. One connection's API key
 * is refused: it yields one `Connection.Unhealthy`, and the other connection publishes regardless.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountingClient } from '../../functions/accounting/client.js';
import { parseAccountingConfig } from '../../functions/accounting/config.js';
import { createDynamoDbCheckpointStore } from '../../functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createSqsPollQueue } from '../../functions/adapters/aws/sqs-poll-queue.js';
import {
  type ConnectionEntry,
  credentialsVariableOf,
  parseConnectionEntry,
} from '../../functions/core/connections/connection-entry.js';
import { parseDetail } from '../../functions/core/event-catalog.js';
import type { BusEvent } from '../../functions/core/ports.js';
import { pollOptionsSchema } from '../../functions/core/sync/poll-options.js';
import { createConnectionClients } from '../../functions/handlers/connection-clients.js';
import { createHandler as createDispatcher } from '../../functions/handlers/dispatch-polls.js';
import { type ConnectionPollOutcome, pollBatch } from '../../functions/handlers/poll-connections.js';
import { createManualClock } from '../../functions/shared/clock.js';
import { silentLogger } from '../../functions/shared/logger.js';
import { type Sandbox, startSandbox } from '../../sandbox/index.js';
import { createFifoQueueStandIn } from '../fakes/fifo-queue.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { memoryRegistry } from './support.js';

const clock = createManualClock({ start: '2026-06-01T10:00:00Z', autoAdvance: true });
let sandbox: Sandbox;
let servers: TestServers;
let checkpointsTable: string;

beforeAll(async () => {
  [sandbox, servers] = await Promise.all([
    startSandbox({ clock, seed: 3, sizes: { documents: 40, partners: 10 } }),
    startTestServers(),
  ]);
  checkpointsTable = await servers.checkpointTable();
});
afterAll(async () => {
  await sandbox?.close();
  await servers?.close();
});

/** Which key each connection's own variable holds (`env:<NAME>_CREDENTIALS`), by a label. */
const keyLabels = new Map<string, string>();
const entry = (name: string, keyLabel: string): ConnectionEntry => {
  keyLabels.set(name, keyLabel);
  return parseConnectionEntry({
    name,
    variant: 'sk',
    baseUrl: sandbox.baseUrl,
    credentialsSecret: `env:${credentialsVariableOf(name)}`,
    collections: ['ReceivedOrders', 'IssuedInvoices'],
  });
};

/** `failing`: connections whose registry read fails (the table, not the connection, is at fault). */
function harness(entries: ConnectionEntry[], failing: readonly string[] = []) {
  const memory = memoryRegistry(entries);
  const registry: typeof memory = {
    ...memory,
    get: async (name) => {
      if (failing.includes(name)) throw new Error('registry unavailable');
      return memory.get(name);
    },
  };
  const logs: unknown[] = [];
  const logger = {
    debug: (m: string, d?: object) => void logs.push([m, d]),
    info: (m: string, d?: object) => void logs.push([m, d]),
    warn: (m: string, d?: object) => void logs.push([m, d]),
    error: (m: string, d?: object) => void logs.push([m, d]),
  };
  const events: BusEvent[] = [];
  const queue = createFifoQueueStandIn({ clock });
  const secrets: Record<string, string> = {
    'env:GOOD_KEY': sandbox.credentials.apiKey,
    'env:BAD_KEY': 'not-the-key',
  };
  const clients = createConnectionClients({
    build: async (e) =>
      createAccountingClient(
        parseAccountingConfig({
          baseUrl: e.baseUrl,
          apiKey: secrets[keyLabels.get(e.name) ?? ''],
          variant: e.variant,
        }),
        { clock, logger },
      ),
  });
  const checkpoints = createDynamoDbCheckpointStore({
    client: servers.dynamoDb,
    tableName: checkpointsTable,
  });
  const dispatch = createDispatcher({
    registry,
    queue: createSqsPollQueue({ client: queue.client, queueUrl: queue.queueUrl }),
    clock,
    logger: silentLogger,
  });
  const outcomes: ConnectionPollOutcome[] = [];
  const deps = {
    registry,
    clients,
    checkpoints,
    publisher: { publish: async (batch: readonly BusEvent[]) => void events.push(...batch) },
    clock,
    logger,
    settings: {
      options: pollOptionsSchema.omit({ connection: true, variant: true, source: true }).parse({}),
      concurrency: 2,
    },
  };
  const dispatchOnly = () => dispatch({ scheduledTime: clock.now().toISOString() });
  const drain = async () => {
    const invocations = await queue.drain(async (event) => {
      const out = await pollBatch(deps, event);
      outcomes.push(...out.outcomes);
      return out;
    }, 5);
    clock.advance(60_000);
    return invocations;
  };
  const cycle = async () => {
    await dispatchOnly();
    return drain();
  };
  return {
    registry,
    events,
    logs,
    queue,
    outcomes,
    cycle,
    dispatchOnly,
    drain,
    checkpoints,
    close: () => clients.close(),
  };
}

describe('polling many connections', () => {
  it('a connection with refused credentials yields one Connection.Unhealthy; the other publishes', async () => {
    const h = harness([
      entry('good', 'env:GOOD_KEY'),
      entry('broken', 'env:BAD_KEY'),
      entry('nokey', 'env:MISSING'),
    ]);
    await h.cycle();
    await h.cycle();

    const fromGood = h.events.filter((e) => e.source === 'accounting.good');
    expect(fromGood.length).toBeGreaterThan(0);
    for (const e of fromGood) expect((e.detail as { connection: string }).connection).toBe('good');
    const unhealthy = h.events.filter((e) => e.detailType === 'Connection.Unhealthy');
    expect(unhealthy).toHaveLength(2);
    // No credentials at all (the client cannot even be configured): unhealthy for `credentials`.
    expect(unhealthy.find((e) => e.source === 'accounting.nokey')).toMatchObject({
      detail: { connection: 'nokey', reason: 'credentials' },
    });
    expect(unhealthy.find((e) => e.source === 'accounting.broken')).toMatchObject({
      source: 'accounting.broken',
      detail: { connection: 'broken', reason: 'authentication' },
    });
    for (const e of unhealthy) expect(() => parseDetail('Connection.Unhealthy', e.detail)).not.toThrow();
    expect(h.events.filter((e) => e.source === 'accounting.broken')).toHaveLength(1);
    // Both cycles polled both connections; nothing was retried or dead-lettered.
    expect(h.outcomes.map((o) => `${o.connection}:${o.status}`).sort()).toEqual([
      'broken:polled',
      'broken:polled',
      'good:polled',
      'good:polled',
      'nokey:credentials',
      'nokey:credentials',
    ]);
    expect(h.queue.deadLetters).toEqual([]);
    expect(await h.checkpoints.get('good#ReceivedOrders')).toBeDefined();
    expect(await h.checkpoints.get('broken#ReceivedOrders')).toBeUndefined();
    // Neither key appears in any log line or event.
    const seen = JSON.stringify([h.logs, h.events]);
    expect(seen).not.toContain(sandbox.credentials.apiKey);
    expect(seen).not.toContain('not-the-key');
    await h.close();
  });

  it('a connection removed after its dispatch is not polled, and the checkpoints of the others are untouched', async () => {
    const h = harness([entry('left', 'env:GOOD_KEY'), entry('stays', 'env:GOOD_KEY')]);
    await h.cycle();
    const before = await h.checkpoints.get('left#IssuedInvoices');
    const staysBefore = await h.checkpoints.get('stays#IssuedInvoices');
    expect(before).toBeDefined();
    await h.registry.remove('left');
    h.outcomes.length = 0;
    await h.cycle();
    expect(h.outcomes.map((o) => `${o.connection}:${o.status}`)).toEqual(['stays:polled']);
    expect(await h.checkpoints.get('left#IssuedInvoices')).toEqual(before);
    expect((await h.checkpoints.get('stays#IssuedInvoices'))?.version).toBeGreaterThanOrEqual(
      staysBefore?.version ?? 0,
    );
    // Removed between the dispatch and the poll: the request is done without a poll.
    await h.registry.add(entry('late', 'env:GOOD_KEY'));
    await h.dispatchOnly();
    await h.registry.remove('late');
    h.outcomes.length = 0;
    await h.drain();
    expect(h.outcomes.map((o) => `${o.connection}:${o.status}`).sort()).toEqual([
      'late:removed',
      'stays:polled',
    ]);
    expect(await h.checkpoints.get('late#IssuedInvoices')).toBeUndefined();
    expect(h.queue.deadLetters).toEqual([]);
    await h.close();
  });

  it("a failure that is not the connection's own fails only its messages; after three receives they are dead letters", async () => {
    const h = harness([entry('steady', 'env:GOOD_KEY'), entry('flaky', 'env:GOOD_KEY')], ['flaky']);
    await h.cycle();
    expect(h.outcomes.filter((o) => o.connection === 'steady').map((o) => o.status)).toEqual(['polled']);
    expect(h.outcomes.filter((o) => o.connection === 'flaky').map((o) => o.status)).toEqual([
      'failed',
      'failed',
      'failed',
    ]);
    expect(h.queue.deadLetters.map((d) => d.groupId)).toEqual(['flaky']);
    expect(h.events.some((e) => e.source === 'accounting.steady')).toBe(true);
    expect(h.events.some((e) => e.source === 'accounting.flaky')).toBe(false);
    await h.close();
  });
});
