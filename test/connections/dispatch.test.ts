/**
 * The dispatcher: which connections are due in a minute, and — against the registry and the FIFO
 * stand-in — that adding, pausing and removing a connection takes effect on the next tick with no
 * deployment, that a retried tick enqueues nothing twice, and that other connections' checkpoints
 * are never touched.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbConnectionRegistry } from '../../functions/adapters/aws/dynamodb-connection-registry.js';
import {
  createSqsPollQueue,
  deduplicationIdOf,
  messageGroupIdOf,
} from '../../functions/adapters/aws/sqs-poll-queue.js';
import {
  type ConnectionEntry,
  parseConnectionEntry,
} from '../../functions/core/connections/connection-entry.js';
import { isDue, planDispatch, SLOT_MS } from '../../functions/core/connections/dispatch.js';
import type { ConnectionRegistry, RegistryScanner } from '../../functions/core/connections/registry.js';
import { createHandler } from '../../functions/handlers/dispatch-polls.js';
import { createManualClock } from '../../functions/shared/clock.js';
import { silentLogger } from '../../functions/shared/logger.js';
import { recordingLogger } from '../actions/support.js';
import { createFifoQueueStandIn } from '../fakes/fifo-queue.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { memoryRegistry } from './support.js';

const entry = (name: string, more: Partial<ConnectionEntry> = {}): ConnectionEntry =>
  parseConnectionEntry({
    name,
    variant: 'cz',
    credentialsSecret: `env:${name.toUpperCase().replaceAll('-', '_')}_CREDENTIALS`,
    ...more,
  });

describe('due connections', () => {
  it('a 60 s interval is due every minute; 300 s once in five; paused never', () => {
    const slots = Array.from({ length: 60 }, (_, i) => 29_000_000 + i);
    expect(slots.filter((s) => isDue({ name: 'a', pollIntervalSeconds: 60 }, s))).toHaveLength(60);
    expect(slots.filter((s) => isDue({ name: 'a', pollIntervalSeconds: 300 }, s))).toHaveLength(12);
    const plan = planDispatch([entry('a'), entry('b', { paused: true })], 29_000_000 * SLOT_MS + 1234);
    expect(plan).toEqual({
      paused: 1,
      requests: [
        {
          version: 1,
          connection: 'a',
          slot: 29_000_000,
          scheduledAt: new Date(29_000_000 * SLOT_MS).toISOString(),
        },
      ],
    });
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

  it('FIFO ids: the group is the connection, the deduplication id its slot; both within 128 characters', () => {
    expect(messageGroupIdOf('acme')).toBe('acme');
    expect(deduplicationIdOf({ slot: 7, connection: 'acme' })).toBe('7:acme');
    const long = 'x'.repeat(200);
    expect(messageGroupIdOf(long)).toHaveLength(64);
    expect(deduplicationIdOf({ slot: 7, connection: long }).length).toBeLessThanOrEqual(128);
  });
});

function describeDispatcherAgainst(
  name: string,
  makeRegistry: () => Promise<ConnectionRegistry & RegistryScanner>,
): void {
  describe(`dispatcher against ${name}`, () => {
    it('add: polled from the next tick; pause and remove: no longer; a retried tick sends nothing twice', async () => {
      const clock = createManualClock({ start: '2026-06-01T10:00:00Z' });
      const registry = await makeRegistry();
      const queue = createFifoQueueStandIn({ clock });
      const dispatch = createHandler({
        registry,
        queue: createSqsPollQueue({ client: queue.client, queueUrl: queue.queueUrl }),
        clock,
        logger: silentLogger,
      });
      const tick = async () => {
        const scheduledTime = clock.now().toISOString();
        const summary = await dispatch({ scheduledTime });
        const sent = queue.messages().map((m) => m.groupId);
        queue.settle(queue.receive(10), { batchItemFailures: [] });
        while (queue.messages().length > 0) queue.settle(queue.receive(10), { batchItemFailures: [] });
        clock.advance(60_000);
        return { summary, sent, scheduledTime };
      };

      await registry.add(entry('alpha'));
      expect((await tick()).sent).toEqual(['alpha']);
      await registry.add(entry('beta'));
      const second = await tick();
      expect(second.sent).toEqual(['alpha', 'beta']);
      // The same tick again (Scheduler's retry): accepted, but nothing is delivered twice.
      await dispatch({ scheduledTime: second.scheduledTime });
      expect(queue.messages()).toEqual([]);

      await registry.setPaused('alpha', true);
      expect((await tick()).sent).toEqual(['beta']);
      await registry.setPaused('alpha', false);
      await registry.remove('beta');
      const last = await tick();
      expect(last.sent).toEqual(['alpha']);
      expect(last.summary).toMatchObject({ registered: 1, paused: 0, due: 1, enqueued: 1, failed: 0 });
    });

    it('many connections go out in batches of ten, one message group each', async () => {
      const clock = createManualClock({ start: '2026-06-01T10:00:00Z' });
      const registry = await makeRegistry();
      for (let i = 0; i < 25; i++) await registry.add(entry(`c${String(i).padStart(2, '0')}`));
      const queue = createFifoQueueStandIn({ clock });
      await createHandler({
        registry,
        queue: createSqsPollQueue({ client: queue.client, queueUrl: queue.queueUrl }),
        clock,
        logger: silentLogger,
      })({});
      expect(queue.sendBatchCalls).toBe(3);
      expect(new Set(queue.messages().map((m) => m.groupId)).size).toBe(25);
    });
  });
}

let servers: TestServers;
beforeAll(async () => {
  servers = await startTestServers();
});
afterAll(() => servers.close());

describeDispatcherAgainst('a registry in memory', async () => memoryRegistry());
describeDispatcherAgainst('the DynamoDB registry (dynalite)', async () =>
  createDynamoDbConnectionRegistry({ client: servers.dynamoDb, tableName: await servers.connectionTable() }),
);

describe('a malformed registry item (dynalite)', () => {
  it('is skipped, logged with its key and fields, and counted; every other connection is dispatched', async () => {
    const clock = createManualClock({ start: '2026-06-01T10:00:00Z' });
    const tableName = await servers.connectionTable();
    const registry = createDynamoDbConnectionRegistry({ client: servers.dynamoDb, tableName });
    for (const name of ['alpha', 'gamma']) await registry.add(entry(name));
    // Written around the registry (a hand edit of the table): an unknown variant and no secret reference.
    await servers.dynamoDb.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { name: { S: 'beta' }, variant: { S: 'xx' }, pollIntervalSeconds: { N: '60' } },
      }),
    );
    const queue = createFifoQueueStandIn({ clock });
    const logger = recordingLogger();
    const counted: Array<[string, number]> = [];
    const metrics = {
      count: (name: string, value: number) => void counted.push([name, value]),
      milliseconds: () => {},
      flush: () => {},
    };
    const summary = await createHandler({
      registry,
      queue: createSqsPollQueue({ client: queue.client, queueUrl: queue.queueUrl }),
      clock,
      logger,
      metrics,
    })({ scheduledTime: clock.now().toISOString() });

    expect(queue.messages().map((m) => m.groupId)).toEqual(['alpha', 'gamma']);
    expect(summary).toMatchObject({ registered: 2, malformed: 1, due: 2, enqueued: 2, failed: 0 });
    const skipped = logger.lines.filter((l) => l.message === 'registry item skipped');
    expect(skipped).toEqual([
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
    expect(counted).toContainEqual(['RegistryItemsMalformed', 1]);
  });
});
