/**
 * "Held for a person": the one rule every action that contacts a partner follows (sending,
 * reminders, the reminder pass, and any action that sends, pays or e-invoices): a document the
 * rule holds is not sent anything until a person releases it.
 *
 * A document is held when it was made from an e-shop order whose partner the intake linked on data
 * the customer typed at checkout (the order's `InternalNote` carries `PARTNER_FROM_CHECKOUT_MARK`).
 * Nothing on the invoice says so — a transfer takes no note — but its items name the order's items
 * (`ReceivedOrderItemId`, kept down the chain), and the order was modified by its transfer shortly
 * before the invoice was made: the received orders modified since the invoice's earliest date (less
 * the lookback) hold it.
 *
 * The hold is persisted in the action state (one item per connection, `holds#<connection>`) before
 * `SendingHeld` is published, so every later action finds it without asking the service again; only
 * a person releases it (`releaseHold`: the CLI's `holds release`, the console's Release), which
 * publishes `SendingReleased`. A released document is never held again by the same rule.
 */
import * as z from 'zod';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { CheckpointConflictError } from '../errors.js';
import { hasPartnerFromCheckoutMark } from '../partner-from-checkout.js';
import type { CheckpointStore, Clock, EventPublisher, Logger } from '../ports.js';
import { stringField } from './action-event.js';
import {
  type ActionOutcome,
  type OutcomeContext,
  outcomeBase,
  outcomeEnvelope,
  publishOutcome,
} from './outcomes.js';
import { sendingHeldEntry, sendingReleasedEntry } from './send-invoice/events.js';

export const holdSchema = z.object({
  recordType: z.string().min(1),
  id: recordIdSchema,
  documentNumber: z.string().nullable(),
  reason: z.literal('partnerFromCheckout'),
  receivedOrder: z.object({ id: recordIdSchema, documentNumber: z.string().nullable() }),
  /** The event source the document's outcomes are published under. */
  eventSource: z.string().min(1),
  /** The action that found the mark, and the event it ran on. */
  action: z.string().min(1),
  causationId: z.string().min(1),
  heldAt: z.string(),
  status: z.enum(['held', 'released']),
  released: z.object({ at: z.string(), by: z.string().min(1), via: z.enum(['cli', 'console']) }).optional(),
});
export type Hold = z.infer<typeof holdSchema>;

const holdListSchema = z.object({ holds: z.array(holdSchema) });
type HoldList = z.infer<typeof holdListSchema>;

/** The action state item holding a connection's holds. */
export function holdsKey(connection: string): string {
  return `holds#${connection}`;
}

/** Every hold of a connection, held and released. */
export async function readHolds(state: CheckpointStore<unknown>, connection: string): Promise<Hold[]> {
  const stored = await state.get(holdsKey(connection));
  return stored ? holdListSchema.parse(stored.value).holds : [];
}

const MAX_CONFLICT_RETRIES = 5;

/** Reads, changes and writes a connection's holds with optimistic concurrency. */
async function updateHolds(
  state: CheckpointStore<unknown>,
  connection: string,
  change: (current: Hold[]) => Hold[],
): Promise<Hold[]> {
  for (let attempt = 1; ; attempt += 1) {
    const stored = await state.get(holdsKey(connection));
    const current: HoldList = stored ? holdListSchema.parse(stored.value) : { holds: [] };
    const next = { holds: change(current.holds) };
    try {
      await state.put(holdsKey(connection), next, stored?.version);
      return next.holds;
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
}

const same = (h: Pick<Hold, 'recordType' | 'id'>, recordType: string, id: string) =>
  h.recordType === recordType && h.id.toLowerCase() === id.toLowerCase();

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

/** The marked order the document was made from, read whole (a list item may lack `InternalNote`). */
async function markedSourceOrder(
  deps: HoldDeps,
  record: ApiRecord,
  log: Record<string, unknown>,
): Promise<ApiRecord | undefined> {
  const found = await sourceOrderOf(deps.api, record, deps.config.referenceLookbackSeconds);
  if (!found) {
    if (receivedOrderItemLinks(record).size > 0) deps.logger.warn('source order of invoice not found', log);
    return undefined;
  }
  const order = 'InternalNote' in found ? found : await deps.api.get('ReceivedOrders', found.Id);
  return hasPartnerFromCheckoutMark(order.InternalNote) ? order : undefined;
}

export interface HoldDeps {
  api: AccountingApi;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  config: { referenceLookbackSeconds: number };
  /** The action state table; without it a hold is found and announced, not kept. */
  state?: CheckpointStore<unknown> | undefined;
}

/** What an action about to contact a partner asks the rule about. */
export interface HoldCheck {
  /** The document as the service holds it. */
  record: ApiRecord;
  ctx: OutcomeContext;
  /** How the partner would be contacted (the `SendingHeld` channel). */
  channel: 'email' | 'einvoice';
  log: Record<string, unknown>;
}

const HELD: ActionOutcome = {
  status: 'skipped',
  reason: 'held for a person: the partner was matched on checkout input',
};

/**
 * The rule: `skipped` when the document is held (a hold kept from before, or a mark found now,
 * which is kept and then announced with `SendingHeld`); `undefined` when the action may go on.
 */
export async function heldForPerson(deps: HoldDeps, check: HoldCheck): Promise<ActionOutcome | undefined> {
  const { ctx, record } = check;
  const { connection } = ctx.event.envelope;
  const { recordType, id } = ctx.source;
  if (deps.state) {
    const kept = (await readHolds(deps.state, connection)).find((h) => same(h, recordType, id));
    if (kept?.status === 'released') return undefined;
    if (kept) {
      deps.logger.info('held for a person', { ...check.log, heldAt: kept.heldAt });
      return HELD;
    }
  }
  const order = await markedSourceOrder(deps, record, check.log);
  if (!order) return undefined;
  deps.logger.warn('sending held for a person', { ...check.log, receivedOrderId: order.Id });
  const receivedOrder = { id: order.Id, documentNumber: stringField(order, 'DocumentNumber') };
  const hold: Hold = {
    recordType,
    id,
    documentNumber: ctx.source.documentNumber,
    reason: 'partnerFromCheckout',
    receivedOrder,
    eventSource: ctx.event.source,
    action: ctx.action,
    causationId: ctx.event.eventId,
    heldAt: deps.clock.now().toISOString(),
    status: 'held',
  };
  // Kept first: whoever sees `SendingHeld` finds the hold in force.
  if (deps.state) {
    await updateHolds(deps.state, connection, (holds) =>
      holds.some((h) => same(h, recordType, id)) ? holds : [...holds, hold],
    );
  }
  if (recordType === 'IssuedInvoice') {
    await publishOutcome(
      deps.publisher,
      ctx.event.source,
      sendingHeldEntry,
      {
        ...outcomeBase(ctx, 'SendingHeld', deps.clock),
        channel: check.channel,
        reason: hold.reason,
        receivedOrder,
      },
      deps.clock.now(),
    );
  }
  return HELD;
}

/** The `action` of a release: a person's, not an action's. */
export const RELEASE_ACTION = 'hold.release';

/** There is no hold in force on the document. */
export class NoHoldError extends Error {
  override readonly name = 'NoHoldError';
}

/**
 * A person releases a held document: the hold is kept as released (the rule never holds the
 * document again) and `SendingReleased` is published with who released it and how.
 */
export async function releaseHold(
  deps: { state: CheckpointStore<unknown>; publisher: EventPublisher; clock: Clock },
  request: { connection: string; id: string; by: string; via: 'cli' | 'console'; recordType?: string },
): Promise<Hold> {
  const recordType = request.recordType ?? 'IssuedInvoice';
  const at = deps.clock.now();
  let released: Hold | undefined;
  await updateHolds(deps.state, request.connection, (holds) =>
    holds.map((h) => {
      if (!same(h, recordType, request.id) || h.status !== 'held') return h;
      released = {
        ...h,
        status: 'released',
        released: { at: at.toISOString(), by: request.by, via: request.via },
      };
      return released;
    }),
  );
  if (!released) {
    throw new NoHoldError(`id: no ${recordType} ${request.id} is held for connection ${request.connection}`);
  }
  const hold = released;
  if (hold.recordType === 'IssuedInvoice') {
    const source = {
      recordType: hold.recordType,
      id: hold.id,
      documentNumber: hold.documentNumber,
      modifiedDate: null,
    };
    await publishOutcome(
      deps.publisher,
      hold.eventSource,
      sendingReleasedEntry,
      {
        ...outcomeEnvelope(
          { action: RELEASE_ACTION, connection: request.connection, source, causationId: hold.causationId },
          'SendingReleased',
          deps.clock,
          at.toISOString(),
        ),
        reason: hold.reason,
        receivedOrder: hold.receivedOrder,
        heldAt: hold.heldAt,
        releasedBy: request.by,
        via: request.via,
      },
      at,
    );
  }
  return hold;
}
