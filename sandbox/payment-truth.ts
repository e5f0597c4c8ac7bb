/**
 * The sandbox's ground truth of payments (served by `GET /_sandbox/payments`): every payment made,
 * with the document as its record said at the time, and every due date that passed with something
 * still to pay, once per document and due date. Due dates are calendar days of the service's
 * country (Europe/Prague).
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import type { DomainContext } from './domain-context.js';

export const payableCollections = ['IssuedInvoices', 'IssuedAdvanceInvoices'] as const;

/** What the ground truth names of a document: as its record says at the time. */
export interface PayableDocument {
  collection: string;
  documentId: string;
  documentNumber: string;
  partnerId: string | null;
  partnerName: string | null;
  currencyId: string | null;
  /** Total in the document currency. */
  total: number;
  dueDate: string | null;
}

/** Ground truth of one payment the sandbox made (activity generator, liquidation and bank operations). */
export interface PaymentMade extends PayableDocument {
  liquidationId: string;
  /** Amount in the document currency. */
  amount: number;
  /** How it relates to the rest before it: in full, in part, over it, or just under it (a small rest left). */
  kind: 'full' | 'partial' | 'over' | 'under';
  /** Made on a day after the document's due date. */
  afterDueDate: boolean;
  /** Rest to pay before and after this payment (after: 0 when paid in full or over). */
  restBefore: number;
  restAfter: number;
  /** Liquidation date (the payment's day). */
  date: string;
  /** Clock time the payment was made (epoch ms). */
  madeAtMs: number;
}

/** Ground truth of a due date that passed with something still to pay: once per document and due date. */
export interface DueDatePass extends PayableDocument {
  dueDate: string;
  /** Rest to pay when the sandbox recorded the pass. */
  restToPay: number;
  /** When it became overdue: the start of the day after the due date (Europe/Prague), or when that due date was set if later. */
  passedAtMs: number;
  /** When the sandbox recorded it (at a payment, a due-date move or a read of the ground truth). */
  recordedAtMs: number;
}

const DAY_MS = 86_400_000;
/** Due dates are calendar days of the service's country. */
const serviceDay = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Prague',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The service's calendar day (YYYY-MM-DD) at `ms`. */
export function serviceDayOf(ms: number): string {
  return serviceDay.format(new Date(ms));
}

/** The instant the service's calendar day `day` (YYYY-MM-DD) begins. */
function startOfServiceDay(day: string): number {
  const utc = Date.parse(`${day}T00:00:00Z`);
  // Prague is one or two hours ahead of UTC.
  for (const hours of [2, 1]) {
    const ms = utc - hours * 3_600_000;
    if (serviceDayOf(ms) === day) return ms;
  }
  return utc - 3_600_000;
}

/** The day after `day` (YYYY-MM-DD). */
function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

/** The document's total in its own currency. */
export function documentTotal(record: ApiRecord): number {
  const recap = (record.DocumentRecapitulation ?? {}) as Record<string, unknown>;
  const foreign = recap.ForeignCurrencyTotalPrice;
  return Number(typeof foreign === 'number' ? foreign : (recap.TotalPrice ?? 0));
}

/** The ground truth of payments; the rest to pay of a document comes from the liquidations. */
export class PaymentTruth {
  /** Every payment made since the start (or the last reset), in order: the ground truth of payments. */
  readonly payments: PaymentMade[] = [];
  /** Every due date seen passed with something to pay, in the order recorded (append-only). */
  readonly dueDatePasses: DueDatePass[] = [];
  private passed = new Set<string>();
  /** When a document's due date was last moved (epoch ms), by document id. */
  private dueSetAt = new Map<string, number>();

  constructor(
    private readonly ctx: DomainContext,
    private readonly restToPay: (collection: string, record: ApiRecord) => number,
  ) {}

  reset(): void {
    this.payments.length = 0;
    this.dueDatePasses.length = 0;
    this.passed.clear();
    this.dueSetAt.clear();
  }

  /** Records a payment just made of a document, with the document as its record says now. */
  recordPayment(
    collection: string,
    record: ApiRecord,
    payment: Omit<PaymentMade, keyof PayableDocument>,
  ): void {
    this.payments.push({ ...this.describe(collection, record), ...payment });
  }

  /** Notes that a document's due date was set now (a later pass counts from then at the earliest). */
  dueDateSet(id: string): void {
    this.dueSetAt.set(id, this.ctx.now());
  }

  /** The ground truth's view of a document. */
  private describe(collection: string, record: ApiRecord): PayableDocument {
    const address = (record.BusinessPartnerAddress ?? {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    return {
      collection,
      documentId: record.Id,
      documentNumber: String(record.DocumentNumber ?? ''),
      partnerId: text(address.BusinessPartnerId),
      partnerName: text(address.CompanyName) ?? text(address.Name),
      currencyId: text(record.CurrencyId),
      total: documentTotal(record),
      dueDate: text(record.DueDate),
    };
  }

  /**
   * Records the due dates that have passed with something to pay (of one document, or of every
   * payable document); each document and due date once. Called before a payment and after a due date
   * moved, and by the ground truth's read, so a pass is recorded before anything can end it.
   */
  sweepOverdue(only?: { collection: string; id: string }): void {
    const now = this.ctx.now();
    const today = serviceDayOf(now);
    const targets = only
      ? [only]
      : payableCollections.flatMap((collection) =>
          this.ctx.state.collection(collection).entries.map((e) => ({ collection, id: e.id })),
        );
    for (const { collection, id } of targets) {
      const record = this.ctx.state.getLatest(collection, id);
      const due = typeof record?.DueDate === 'string' ? record.DueDate : undefined;
      if (!record || !due || this.passed.has(`${id}@${due}`)) continue;
      const day = due.slice(0, 10);
      if (!(today > day)) continue;
      const rest = this.restToPay(collection, record);
      if (rest <= 0) continue;
      const setAt = this.dueSetAt.get(id) ?? Date.parse(String(record.ModificationInfo?.CreatedDate ?? ''));
      this.passed.add(`${id}@${due}`);
      this.dueDatePasses.push({
        ...this.describe(collection, record),
        dueDate: due,
        restToPay: rest,
        passedAtMs: Math.max(startOfServiceDay(nextDay(day)), Number.isNaN(setAt) ? 0 : setAt),
        recordedAtMs: now,
      });
    }
  }
}
