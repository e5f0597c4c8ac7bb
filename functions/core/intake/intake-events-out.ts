/** Building and publishing the intake's events; each detail is checked against its catalog schema. */
import { connectionEventSource } from '../connection.js';
import { actionIdempotencyKey } from '../events/action-events.js';
import { parseWithEntry } from '../events/catalog.js';
import { ENVELOPE_VERSION } from '../events/catalog-entry.js';
import { type IntakeChange, intakeEntry } from '../events/intake-events.js';
import type { Clock, EventPublisher } from '../ports.js';
import { type IntakeSource, intakeRecordId } from './shop-order.js';

export interface IntakeEventOrigin {
  connection: string;
  source: IntakeSource;
  shopOrderId: string;
  orderNumber: string | null;
}

export async function publishIntakeEvent(
  deps: { publisher: EventPublisher; clock: Clock; eventSource?: string },
  origin: IntakeEventOrigin,
  change: IntakeChange,
  fields: Record<string, unknown>,
  ...keyParts: string[]
): Promise<void> {
  const id = intakeRecordId(origin.source, origin.shopOrderId);
  const entry = intakeEntry(change);
  const detailType = entry.detailType;
  const detail = parseWithEntry(entry, {
    version: ENVELOPE_VERSION,
    connection: origin.connection,
    recordType: 'EshopOrder',
    id,
    change,
    source: origin.source,
    shopOrderId: origin.shopOrderId,
    orderNumber: origin.orderNumber,
    idempotencyKey: actionIdempotencyKey(origin.connection, 'intake', id, change, ...keyParts),
    occurredAt: deps.clock.now().toISOString(),
    ...fields,
  });
  const now = deps.clock.now();
  await deps.publisher.publish([
    {
      source: deps.eventSource ?? connectionEventSource({ name: origin.connection }),
      detailType,
      detail,
      time: now,
    },
  ]);
}
