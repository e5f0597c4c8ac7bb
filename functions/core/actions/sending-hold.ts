/**
 * Whether an invoice must wait for a person instead of being sent: it was made from an e-shop
 * order whose partner the intake linked on data the customer typed at checkout (the order's
 * `InternalNote` carries `PARTNER_FROM_CHECKOUT_MARK`). Nothing on the invoice says so — a
 * transfer takes no note — but its items name the order's items (`ReceivedOrderItemId`, kept down
 * the chain), and the order was modified by its transfer shortly before the invoice was made: the
 * received orders modified since the invoice's earliest date (less the lookback) hold it.
 */
import type { AccountingApi, ApiRecord } from '../../accounting/api.js';
import { hasPartnerFromCheckoutMark } from '../partner-from-checkout.js';
import { stringField } from './action-event.js';
import { type ActionOutcome, outcomeBase, publishOutcome } from './outcomes.js';
import { sendingHeldEntry } from './send-invoice/events.js';
import type { SendRun } from './send-invoice/sending-run.js';

function itemsOf(record: ApiRecord): Record<string, unknown>[] {
  return Array.isArray(record.Items) ? (record.Items as Record<string, unknown>[]) : [];
}

/** The received-order item ids the invoice's items name (lower case). */
export function receivedOrderItemLinks(invoice: ApiRecord): Set<string> {
  return new Set(
    itemsOf(invoice).flatMap((i) =>
      typeof i.ReceivedOrderItemId === 'string' ? [i.ReceivedOrderItemId.toLowerCase()] : [],
    ),
  );
}

/** The earliest date the invoice carries (issue, order, creation), less `lookbackSeconds`, as ISO. */
function searchFrom(invoice: ApiRecord, lookbackSeconds: number): string {
  const created = (invoice.ModificationInfo as { CreatedDate?: unknown } | undefined)?.CreatedDate;
  const times = [invoice.IssueDate, invoice.OrderDate, created]
    .filter((d): d is string => typeof d === 'string')
    .map((d) => Date.parse(d))
    .filter((t) => Number.isFinite(t));
  const base = times.length > 0 ? Math.min(...times) : 0;
  return new Date(Math.max(0, base - lookbackSeconds * 1000)).toISOString();
}

/** The received order the invoice was made from, when its items name one modified in the window. */
export async function sourceOrderOf(
  api: AccountingApi,
  invoice: ApiRecord,
  lookbackSeconds: number,
): Promise<ApiRecord | undefined> {
  const links = receivedOrderItemLinks(invoice);
  if (links.size === 0) return undefined;
  const modifiedSince = searchFrom(invoice, lookbackSeconds);
  for await (const order of api.listItems('ReceivedOrders', { modifiedSince })) {
    if (itemsOf(order).some((i) => links.has(String(i.Id ?? '').toLowerCase()))) return order;
  }
  return undefined;
}

/**
 * `SendingHeld` and a `skipped` outcome when the invoice's order carries the mark; undefined when
 * the invoice may be sent. A list item carries no `InternalNote` in every variant: the order is
 * read whole.
 */
export async function holdIfPartnerFromCheckout(run: SendRun): Promise<ActionOutcome | undefined> {
  const { deps, event, record } = run;
  const found = await sourceOrderOf(deps.api, record, deps.config.referenceLookbackSeconds);
  if (!found) {
    if (receivedOrderItemLinks(record).size > 0) {
      deps.logger.warn('source order of invoice not found', run.log);
    }
    return undefined;
  }
  const order = 'InternalNote' in found ? found : await deps.api.get('ReceivedOrders', found.Id);
  if (!hasPartnerFromCheckoutMark(order.InternalNote)) return undefined;
  deps.logger.warn('sending held for a person', { ...run.log, receivedOrderId: order.Id });
  await publishOutcome(
    deps.publisher,
    event.source,
    sendingHeldEntry,
    {
      ...outcomeBase(run.ctx, 'SendingHeld', deps.clock),
      channel: run.channel.kind,
      reason: 'partnerFromCheckout',
      receivedOrder: { id: order.Id, documentNumber: stringField(order, 'DocumentNumber') },
    },
    deps.clock.now(),
  );
  return { status: 'skipped', reason: 'held: the partner was matched on checkout input' };
}
