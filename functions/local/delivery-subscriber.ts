/** Builds the HTTP delivery's bus subscribers and reports their outcomes to the view. */
import type { DeliveryPolicy, DeliveryTarget } from '../core/delivery/delivery-targets.js';
import { createHttpDelivery, type HttpDelivery, signingSecret } from './http-delivery.js';
import type { RuntimeUpdate } from './runtime-update.js';

export async function httpDeliverySubscribers(options: {
  targets: readonly DeliveryTarget[];
  env: Record<string, string | undefined>;
  dataDir: string;
  policy?: Partial<DeliveryPolicy>;
  emit: (update: RuntimeUpdate) => void;
}): Promise<HttpDelivery> {
  const { emit } = options;
  const secrets = new Map<string, { secret: string; source: string }>();
  for (const t of options.targets) {
    secrets.set(t.id, await signingSecret(options.env, options.dataDir, t.url, options.targets.length));
  }
  const delivery = createHttpDelivery({
    targets: options.targets,
    secretFor: (t) => secrets.get(t.id)?.secret as string,
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
  for (const t of options.targets) {
    emit({
      kind: 'warning',
      message: `delivering ${t.patternText} to ${t.label}, signed with its own secret in ${secrets.get(t.id)?.source}`,
    });
  }
  return delivery;
}
