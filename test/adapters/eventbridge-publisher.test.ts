import {
  EventBridgeClient,
  EventBridgeServiceException,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createEventBridgePublisher,
  entrySize,
  planBatches,
} from '#functions/adapters/aws/eventbridge-publisher.js';
import { PublishError } from '#functions/core/errors.js';
import type { BusEvent } from '#functions/core/ports.js';
import { createManualClock } from '#functions/shared/clock.js';
import { createLogger } from '#functions/shared/logger.js';

const eventBridge = mockClient(EventBridgeClient);
afterEach(() => eventBridge.reset());

function setup(
  overrides: {
    maxAttempts?: number;
    maxEntrySizeBytes?: number;
    maxRequestSizeBytes?: number;
    maxConcurrentRequests?: number;
  } = {},
) {
  const clock = createManualClock({ autoAdvance: true });
  const lines: string[] = [];
  const logger = createLogger({ sink: (line) => lines.push(line), level: 'debug' });
  const publisher = createEventBridgePublisher({
    client: new EventBridgeClient({ region: 'us-east-1' }),
    busName: 'accounting',
    clock,
    logger,
    maxAttempts: overrides.maxAttempts ?? 4,
    random: () => 0.5,
    ...overrides,
  });
  return { publisher, clock, lines };
}

const event = (i: number, detail: unknown = { id: i }): BusEvent => ({
  source: 'accounting.demo',
  detailType: 'IssuedInvoice.Created',
  detail,
});

const sentEntries = () =>
  eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries ?? []);
const ok = (n: number) => ({
  FailedEntryCount: 0,
  Entries: Array.from({ length: n }, (_, i) => ({ EventId: `e${i}` })),
});

describe('EventBridge publisher', () => {
  it('sends nothing for no events', async () => {
    const { publisher } = setup();
    await publisher.publish([]);
    expect(sentEntries()).toHaveLength(0);
  });

  it('maps events to PutEvents entries on the bus', async () => {
    eventBridge.on(PutEventsCommand).resolves(ok(1));
    const { publisher } = setup();
    const time = new Date('2026-03-01T10:00:00Z');
    await publisher.publish([{ ...event(1), time, resources: ['arn:x'] }]);
    expect(sentEntries()[0]).toEqual([
      {
        EventBusName: 'accounting',
        Source: 'accounting.demo',
        DetailType: 'IssuedInvoice.Created',
        Detail: '{"id":1}',
        Time: time,
        Resources: ['arn:x'],
      },
    ]);
  });

  it('batches by count: 25 events → 10 + 10 + 5, in order', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ok(input.Entries.length));
    const { publisher } = setup();
    await publisher.publish(Array.from({ length: 25 }, (_, i) => event(i)));
    const batches = sentEntries();
    expect(batches.map((b) => b.length)).toEqual([10, 10, 5]);
    expect(batches.flat().map((e) => JSON.parse(e.Detail ?? '').id)).toEqual(
      Array.from({ length: 25 }, (_, i) => i),
    );
  });

  it('batches by size within the request limit', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ok(input.Entries.length));
    const { publisher } = setup({ maxRequestSizeBytes: 1000, maxEntrySizeBytes: 1000 });
    const big = 'x'.repeat(400); // each entry ≈ 400 + source + detail-type bytes
    await publisher.publish(Array.from({ length: 5 }, (_, i) => event(i, { big })));
    const batches = sentEntries();
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    for (const batch of batches)
      expect(batch.reduce((s, e) => s + entrySize(e), 0)).toBeLessThanOrEqual(1000);
  });

  it('refuses an entry over the size limit before sending anything', async () => {
    eventBridge.on(PutEventsCommand).resolves(ok(1));
    const { publisher } = setup({ maxEntrySizeBytes: 300 });
    const error = await publisher
      .publish([event(1), event(2, { big: 'y'.repeat(400) })])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).failed).toBe(1);
    expect(sentEntries()).toHaveLength(0);
  });

  it('resends only the entries that failed, after a backoff', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 2,
        Entries: [
          { EventId: 'a' },
          { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' },
          { EventId: 'c' },
          { ErrorCode: 'InternalFailure' },
        ],
      })
      .resolves(ok(2));
    const { publisher, clock } = setup();
    await publisher.publish([event(0), event(1), event(2), event(3)]);
    const batches = sentEntries();
    expect(batches).toHaveLength(2);
    expect(batches[1]?.map((e) => JSON.parse(e.Detail ?? '').id)).toEqual([1, 3]);
    expect(clock.sleeps).toEqual([50]); // full jitter: 0.5 × 100 ms
  });

  it('retries a throttled request with growing backoff until it succeeds', async () => {
    const throttled = new EventBridgeServiceException({
      name: 'ThrottlingException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: 'Rate exceeded',
    });
    eventBridge.on(PutEventsCommand).rejectsOnce(throttled).rejectsOnce(throttled).resolves(ok(1));
    const { publisher, clock } = setup();
    await publisher.publish([event(1)]);
    expect(sentEntries()).toHaveLength(3);
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it('throws PublishError after maxAttempts of transient failures', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException' }] });
    const { publisher, clock } = setup({ maxAttempts: 3 });
    const error = await publisher.publish([event(1)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).failed).toBe(1);
    expect(sentEntries()).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it('fails at once on a permanent entry error and does not send later batches', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [
        { EventId: 'a' },
        { ErrorCode: 'MalformedDetail', ErrorMessage: 'bad json' },
        ...ok(8).Entries,
      ],
    });
    const { publisher, clock, lines } = setup({ maxConcurrentRequests: 1 });
    const error = await publisher
      .publish(Array.from({ length: 15 }, (_, i) => event(i)))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).failed).toBe(1 + 5);
    expect((error as Error).message).toContain('MalformedDetail');
    expect(sentEntries()).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(lines.some((l) => l.includes('events rejected by the bus'))).toBe(true);
  });

  it('keeps at most maxConcurrentRequests requests in flight and sends every batch once', async () => {
    let active = 0;
    let peak = 0;
    eventBridge.on(PutEventsCommand).callsFake(async (input: { Entries: unknown[] }) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((r) => setImmediate(r));
      active -= 1;
      return ok(input.Entries.length);
    });
    const { publisher } = setup({ maxConcurrentRequests: 3 });
    await publisher.publish(Array.from({ length: 95 }, (_, i) => event(i)));
    expect(peak).toBe(3);
    const ids = sentEntries()
      .flat()
      .map((e) => JSON.parse(e.Detail ?? '').id)
      .sort((a: number, b: number) => a - b);
    expect(ids).toEqual(Array.from({ length: 95 }, (_, i) => i));
  });

  it('with concurrent requests, counts the failed batch and every batch not started as failed', async () => {
    eventBridge.on(PutEventsCommand).callsFake(async (input: { Entries: { Detail: string }[] }) => {
      const first = JSON.parse(input.Entries[0]?.Detail ?? '{}').id as number;
      if (first === 10)
        return { FailedEntryCount: 1, Entries: [{ ErrorCode: 'ValidationException' }, ...ok(9).Entries] };
      await new Promise((r) => setImmediate(r));
      return ok(input.Entries.length);
    });
    const { publisher } = setup({ maxConcurrentRequests: 2 });
    const error = await publisher
      .publish(Array.from({ length: 50 }, (_, i) => event(i)))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    // Batches 0 and 1 run together; batch 1 fails, batch 0 succeeds, batches 2–4 never start.
    expect((error as PublishError).failed).toBe(1 + 30);
    expect(sentEntries()).toHaveLength(2);
  });

  it('fails at once on a non-retryable request error, keeping the cause', async () => {
    const denied = new EventBridgeServiceException({
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: 'denied',
    });
    eventBridge.on(PutEventsCommand).rejects(denied);
    const { publisher } = setup();
    const error = await publisher.publish([event(1), event(2)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).failed).toBe(2);
    expect((error as Error).cause).toBe(denied);
    expect(sentEntries()).toHaveLength(1);
  });

  it('rejects invalid options with the field named', () => {
    expect(() =>
      createEventBridgePublisher({
        client: new EventBridgeClient({ region: 'us-east-1' }),
        busName: '',
        clock: createManualClock(),
        logger: createLogger({ level: 'silent' }),
        maxAttempts: 0,
      }),
    ).toThrow(/busName[\s\S]*maxAttempts|maxAttempts[\s\S]*busName/);
  });
});

describe('planBatches', () => {
  it('keeps order, ≤ 10 entries and ≤ the byte limit per batch (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 300 }), { maxLength: 60 }),
        fc.integer({ min: 400, max: 3000 }),
        (details, limit) => {
          const entries: PutEventsRequestEntry[] = details.map((d) => ({
            Source: 's',
            DetailType: 't',
            Detail: d,
          }));
          const batches = planBatches(entries, limit);
          expect(batches.flat()).toEqual(entries);
          for (const batch of batches) {
            expect(batch.length).toBeGreaterThan(0);
            expect(batch.length).toBeLessThanOrEqual(10);
            expect(batch.reduce((s, e) => s + entrySize(e), 0)).toBeLessThanOrEqual(limit);
          }
        },
      ),
    );
  });

  it('counts UTF-8 bytes and 14 bytes for Time', () => {
    expect(entrySize({ Source: 'ab', DetailType: 'č', Detail: '{}', Resources: ['r'] })).toBe(2 + 2 + 2 + 1);
    expect(entrySize({ Source: 'a', Time: new Date() })).toBe(15);
  });
});
