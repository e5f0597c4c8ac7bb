import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach } from 'vitest';
import { createEventBridgePublisher } from '#functions/adapters/aws/eventbridge-publisher.js';
import { createLocalBus } from '#functions/adapters/local/local-bus.js';
import { createManualClock } from '#functions/shared/clock.js';
import { createLogger } from '#functions/shared/logger.js';
import { describeEventPublisherContract } from './event-publisher-contract.js';

const logger = createLogger({ level: 'silent' });

describeEventPublisherContract('local bus', () => {
  const bus = createLocalBus({ routes: [], deliver: async () => {}, logger });
  return {
    publisher: bus,
    accepted: () =>
      bus.events().map((e) => ({ source: e.source, detailType: e['detail-type'], detail: e.detail })),
  };
});

const eventBridge = mockClient(EventBridgeClient);
afterEach(() => eventBridge.reset());

describeEventPublisherContract('EventBridge (mocked PutEvents, one throttled entry per request)', () => {
  const accepted: { source: string; detailType: string; detail: unknown }[] = [];
  // The first entry of every first attempt is throttled, so acceptance depends on the resend path.
  let throttleNext = true;
  eventBridge
    .on(PutEventsCommand)
    .callsFake((input: { Entries: { Source: string; DetailType: string; Detail: string }[] }) => {
      const results = input.Entries.map((entry, i) => {
        if (i === 0 && throttleNext)
          return { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' };
        accepted.push({
          source: entry.Source,
          detailType: entry.DetailType,
          detail: JSON.parse(entry.Detail),
        });
        return { EventId: `id-${accepted.length}` };
      });
      throttleNext = !throttleNext;
      return { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results };
    });
  const publisher = createEventBridgePublisher({
    client: new EventBridgeClient({ region: 'us-east-1' }),
    busName: 'accounting',
    clock: createManualClock({ autoAdvance: true }),
    logger,
    maxAttempts: 3,
  });
  // Resends reorder within a batch (EventBridge gives no order guarantee either): compare per id.
  return {
    publisher,
    accepted: () =>
      [...accepted].sort(
        (a, b) => Number((a.detail as { id: string }).id) - Number((b.detail as { id: string }).id),
      ),
  };
});
