/** One contract for every `EventPublisher`: the local bus and the EventBridge adapter both run it. */
import { describe, expect, it } from 'vitest';
import type { BusEvent, EventPublisher } from '#functions/core/ports.js';

export interface PublisherUnderTest {
  publisher: EventPublisher;
  /** What the bus accepted so far, as (source, detail-type, parsed detail), in order. */
  accepted(): { source: string; detailType: string; detail: unknown }[];
}

export function describeEventPublisherContract(
  name: string,
  factory: () => PublisherUnderTest | Promise<PublisherUnderTest>,
): void {
  describe(`EventPublisher contract: ${name}`, () => {
    const event = (i: number): BusEvent => ({
      source: 'accounting.demo',
      detailType: i % 2 === 0 ? 'IssuedInvoice.Created' : 'IssuedInvoice.Updated',
      detail: { version: 1, id: String(i), modifiedDate: '2026-01-01T00:00:00', record: { Total: i * 1.5 } },
    });

    it('accepts nothing when given nothing', async () => {
      const { publisher, accepted } = await factory();
      await publisher.publish([]);
      expect(accepted()).toEqual([]);
    });

    it('accepts every event once, in order, with the detail as JSON', async () => {
      const { publisher, accepted } = await factory();
      const events = Array.from({ length: 23 }, (_, i) => event(i));
      await publisher.publish(events);
      expect(accepted()).toEqual(
        events.map((e) => ({ source: e.source, detailType: e.detailType, detail: e.detail })),
      );
    });

    it('accepts successive publishes in order', async () => {
      const { publisher, accepted } = await factory();
      await publisher.publish([event(1)]);
      await publisher.publish([event(2), event(3)]);
      expect(accepted().map((e) => (e.detail as { id: string }).id)).toEqual(['1', '2', '3']);
    });
  });
}
