import { describe, expect, it } from 'vitest';
import { AuthenticationError, UnauthorizedError } from '#functions/accounting/errors.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import {
  classifyConnectionFailure,
  type HealthReport,
  recordHealth,
} from '#functions/core/connections/health.js';
import { parseDetail } from '#functions/core/event-catalog.js';
import type { BusEvent, EventPublisher } from '#functions/core/ports.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';

function setup() {
  const events: BusEvent[] = [];
  let failNext = false;
  const publisher: EventPublisher = {
    async publish(batch) {
      if (failNext) {
        failNext = false;
        throw new Error('bus down');
      }
      events.push(...batch);
    },
  };
  const clock = createManualClock({ start: '2026-03-04T16:41:00.000Z' });
  const deps = {
    checkpoints: createMemoryCheckpointStore(),
    publisher,
    clock,
    logger: silentLogger,
    source: 'accounting.acme',
  };
  return { deps, events, clock, failPublish: () => (failNext = true) };
}

const refused: HealthReport = {
  ok: false,
  reason: 'authentication',
  error: { name: 'UnauthorizedError', status: 401 },
};

describe('connection health', () => {
  it('publishes one Unhealthy for repeated failures and one Recovered after', async () => {
    const { deps, events, clock } = setup();
    await recordHealth(deps, 'acme', { ok: true });
    for (let i = 0; i < 3; i += 1) {
      await recordHealth(deps, 'acme', refused);
      clock.advance(60_000);
    }
    await recordHealth(deps, 'acme', { ok: true });
    await recordHealth(deps, 'acme', { ok: true });
    expect(events.map((e) => e.detailType)).toEqual(['Connection.Unhealthy', 'Connection.Recovered']);
    for (const e of events) {
      expect(e.source).toBe('accounting.acme');
      expect(() => parseDetail(e.detailType, e.detail)).not.toThrow();
    }
    expect(events[1]?.detail).toMatchObject({ unhealthySince: '2026-03-04T16:41:00.000Z' });
  });

  it('announces again, with the same idempotency key, after a failed publish', async () => {
    const { deps, events, failPublish } = setup();
    failPublish();
    await expect(recordHealth(deps, 'acme', refused)).rejects.toThrow('bus down');
    await recordHealth(deps, 'acme', refused);
    await recordHealth(deps, 'acme', refused);
    expect(events).toHaveLength(1);
    const first = events[0]?.detail as { idempotencyKey: string; since: string };
    expect(first.since).toBe('2026-03-04T16:41:00.000Z');
  });

  it('keeps connections apart', async () => {
    const { deps, events } = setup();
    await recordHealth(deps, 'acme', refused);
    await recordHealth(deps, 'other', { ok: true });
    expect(events.map((e) => (e.detail as { connection: string }).connection)).toEqual(['acme']);
  });

  it('classifies only failures of the connection as a whole', () => {
    expect(
      classifyConnectionFailure(new AuthenticationError('refused', ['ACCOUNTING_API_KEY'])),
    ).toMatchObject({
      reason: 'authentication',
    });
    expect(
      classifyConnectionFailure(new UnauthorizedError({ method: 'GET', path: '/v1/IssuedInvoices' }, 401)),
    ).toMatchObject({ reason: 'authentication' });
    expect(classifyConnectionFailure(new Error('boom'))).toBeUndefined();
  });
});
