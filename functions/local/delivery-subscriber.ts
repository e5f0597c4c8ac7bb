/** Wires the HTTP delivery to the local bus as one more subscriber, and its outcomes to the view. */
import type { LocalBus } from '../adapters/local/local-bus.js';
import type { DeliveryPolicy, DeliveryTarget } from '../core/delivery/delivery-targets.js';
import { createHttpDelivery, type HttpDelivery, signingSecret } from './http-delivery.js';
import type { RuntimeUpdate } from './runtime-update.js';

export interface DeliverySubscriber {
  delivery: HttpDelivery;
  /** Stops delivering; warns about events that were not delivered. */
  close(): Promise<void>;
}

export async function subscribeHttpDelivery(
  bus: LocalBus,
  options: {
    targets: readonly DeliveryTarget[];
    env: Record<string, string | undefined>;
    dataDir: string;
    policy?: Partial<DeliveryPolicy>;
    emit: (update: RuntimeUpdate) => void;
  },
): Promise<DeliverySubscriber> {
  const { emit } = options;
  const { secret, source } = await signingSecret(options.env, options.dataDir);
  const delivery = createHttpDelivery({
    targets: options.targets,
    secret,
    ...(options.policy ? { policy: options.policy } : {}),
    onOutcome: (o) => {
      if (o.result === 'retrying') return;
      emit({
        kind: 'action',
        route: o.targetId,
        ok: o.result === 'delivered',
        detailType: o.detailType,
        id: o.eventId,
        ...(o.result === 'dead-lettered'
          ? { message: `not delivered to ${o.url} after ${o.attempt} attempts: ${o.error}` }
          : {}),
      });
    },
  });
  const unsubscribe = bus.onEvent((event) => delivery.handle(event));
  for (const t of options.targets) {
    emit({
      kind: 'warning',
      message: `delivering ${t.patternText} to ${t.url}, signed with the secret in ${source}`,
    });
  }
  return {
    delivery,
    async close() {
      unsubscribe();
      const { undelivered } = await delivery.close();
      if (undelivered > 0) {
        emit({
          kind: 'warning',
          message: `${undelivered} deliveries were still queued or backing off at the stop and were dropped`,
        });
      }
    },
  };
}
