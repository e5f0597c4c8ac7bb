import { describe, expect, it } from 'vitest';
import { createLocalBus, type LocalBus } from '#functions/adapters/local/local-bus.js';
import type { Route } from '#functions/core/routes.js';
import { createManualClock } from '#functions/shared/clock.js';
import { createLogger } from '#functions/shared/logger.js';

const logger = createLogger({ level: 'silent' });

const route: Route = {
  id: 'a',
  handler: 'transfer-documents',
  description: 'a',
  pattern: { 'detail-type': ['IssuedInvoice.Created'] },
  maxConcurrency: 1,
  maxReceiveCount: 4,
  timeoutSeconds: 30,
  outcomes: [],
};

describe('local bus dead-letter sink', () => {
  it('an event sent to the route sink is dead-lettered on that first delivery, without retries', async () => {
    const attempts = new Map<string, number>();
    let local!: LocalBus;
    const clock = createManualClock({ start: '2026-03-01T10:00:00Z' });
    local = createLocalBus({
      routes: [route],
      deliver: async (r, event) => {
        const { name } = event.detail as { name: string };
        attempts.set(name, (attempts.get(name) ?? 0) + 1);
        if (name === 'invalid') {
          await local.deadLetterSink(r.id).send(JSON.stringify(event), {
            action: r.handler,
            reason: 'detail.id: expected a UUID',
            messageId: event.id,
          });
        }
      },
      logger,
      clock,
      retryDelayMs: 1000,
    });
    const outcomes: string[] = [];
    local.onDelivery((o) => outcomes.push(`${o.status}:${o.attempt}`));
    await local.publish([
      { source: 's', detailType: 'IssuedInvoice.Created', detail: { name: 'invalid' } },
      { source: 's', detailType: 'IssuedInvoice.Created', detail: { name: 'ok' } },
    ]);
    await local.drain();

    expect(attempts).toEqual(
      new Map([
        ['invalid', 1],
        ['ok', 1],
      ]),
    );
    const dead = local.deadLetters();
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ routeId: 'a', attempts: 1, error: 'detail.id: expected a UUID' });
    expect(dead[0]?.event.detail).toEqual({ name: 'invalid' });
    expect(outcomes).toEqual(['dead-lettered:1', 'delivered:1']);
    expect(clock.sleeps).toEqual([]);
  });

  it('rejects an unknown route and a body that is not an event of the bus', async () => {
    const local = createLocalBus({ routes: [route], deliver: async () => {}, logger });
    expect(() => local.deadLetterSink('nope')).toThrow("no route 'nope'");
    await expect(
      local.deadLetterSink('a').send('not json', { action: 'x', reason: 'r', messageId: 'm' }),
    ).rejects.toThrow('event of this bus');
    await local.close();
  });
});
