/**
 * Compares the payment events a run published with the sandbox's ground truth of payments
 * (`GET /_sandbox/payments`): every liquidation it made must be reported once as new, with its
 * amount to the cent, and every event must say of its document what the sandbox says (number,
 * partner, currency, total, due date, rest); every due date that passed with something to pay must
 * have its `Overdue` event when the poller could see it. Used by the payments proof (a `run` of
 * 120 s, `npm run proof:payments`) and its tests.
 */
import * as z from 'zod';

const documentShape = {
  collection: z.string(),
  documentId: z.string(),
  documentNumber: z.string(),
  partnerId: z.string().nullable(),
  partnerName: z.string().nullable(),
  currencyId: z.string().nullable(),
  total: z.number(),
  dueDate: z.string().nullable(),
};

export const paymentTruthSchema = z.object({
  payments: z.array(
    z.object({
      ...documentShape,
      liquidationId: z.string(),
      amount: z.number(),
      kind: z.enum(['full', 'partial', 'over', 'under']),
      afterDueDate: z.boolean(),
      restBefore: z.number(),
      restAfter: z.number(),
      date: z.string(),
      madeAtMs: z.number(),
    }),
  ),
  dueDatePasses: z.array(
    z.object({
      ...documentShape,
      dueDate: z.string(),
      restToPay: z.number(),
      passedAtMs: z.number(),
      recordedAtMs: z.number(),
    }),
  ),
});
export type PaymentTruth = z.infer<typeof paymentTruthSchema>;
type Payment = PaymentTruth['payments'][number];
type Pass = PaymentTruth['dueDatePasses'][number];

const paymentDetailSchema = z.object({
  recordType: z.enum(['IssuedInvoice', 'IssuedAdvanceInvoice']),
  id: z.string(),
  change: z.enum(['Paid', 'PartiallyPaid', 'Overdue']),
  documentNumber: z.string(),
  partner: z.object({ id: z.string().nullable(), name: z.string().nullable() }),
  currencyId: z.string().nullable(),
  total: z.number(),
  paid: z.number(),
  restToPay: z.number(),
  dueDate: z.string().nullable(),
  liquidations: z.array(z.object({ id: z.string(), date: z.string(), amount: z.number() })),
  observedAt: z.string(),
  idempotencyKey: z.string(),
  amountPaid: z.number().optional(),
  daysOverdue: z.number().optional(),
});
type PaymentDetail = z.infer<typeof paymentDetailSchema>;

/** A line of `--events-out` (EventBridge field names). */
export interface PublishedEvent {
  'detail-type': string;
  detail: unknown;
}

/** A poll of the run (its `poll` update): when it started and how long it took. */
export interface PollSpan {
  atMs: number;
  durationMs: number;
}

export interface PaymentCheck {
  /** Payment events published, by detail-type (every line, duplicates included). */
  events: Record<string, number>;
  /** Distinct events (by idempotency key). */
  unique: number;
  duplicates: number;
  /** Liquidations the sandbox made, by kind, and those made after the due date. */
  liquidations: {
    total: number;
    full: number;
    partial: number;
    over: number;
    under: number;
    afterDueDate: number;
  };
  /** Due dates passed with something to pay (those that passed after `startedAtMs`: during the run), and those the poller had to see (see `overdueRequired`). */
  dueDatePasses: number;
  dueDatePassesDuringRun: number;
  overdueRequired: number;
  missed: number;
  wrong: number;
  /** What was missed or wrong, one line each (the first 50). */
  problems: string[];
}

const PAYMENT_TYPE = /^(IssuedInvoice|IssuedAdvanceInvoice)\.(Paid|PartiallyPaid|Overdue)$/;
const cents = (n: number) => Math.round(n * 100);
const recordTypeOf: Record<string, string> = {
  IssuedInvoices: 'IssuedInvoice',
  IssuedAdvanceInvoices: 'IssuedAdvanceInvoice',
};
const DAY_MS = 86_400_000;
const serviceDay = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Prague',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** Whole service days (Europe/Prague) from the due date to `atMs`. */
function daysPast(dueDate: string, atMs: number): number {
  const today = Date.parse(`${serviceDay.format(new Date(atMs))}T00:00:00Z`);
  return Math.round((today - Date.parse(`${dueDate.slice(0, 10)}T00:00:00Z`)) / DAY_MS);
}

/** The differences between what an event says of its document and what the ground truth says. */
function documentDiff(d: PaymentDetail, truth: Payment | Pass): string[] {
  const diffs: string[] = [];
  const want = {
    recordType: recordTypeOf[truth.collection],
    documentNumber: truth.documentNumber,
    partnerId: truth.partnerId,
    partnerName: truth.partnerName,
    currencyId: truth.currencyId,
    totalCents: cents(truth.total),
  };
  const got = {
    recordType: d.recordType,
    documentNumber: d.documentNumber,
    partnerId: d.partner.id,
    partnerName: d.partner.name,
    currencyId: d.currencyId,
    totalCents: cents(d.total),
  };
  for (const key of Object.keys(want) as (keyof typeof want)[]) {
    if (want[key] !== got[key]) diffs.push(`${key} ${String(got[key])}, expected ${String(want[key])}`);
  }
  return diffs;
}

/**
 * Whether the poller had to see a due-date pass: the document still had something to pay at the
 * end, or two whole polls began after the pass and ended before the payment that settled it.
 */
function overdueRequired(pass: Pass, payments: readonly Payment[], polls: readonly PollSpan[]): boolean {
  const settled = payments.find(
    (p) => p.documentId === pass.documentId && p.restAfter <= 0 && p.madeAtMs >= pass.passedAtMs,
  );
  if (!settled) return true;
  const between = polls.filter(
    (p) => p.atMs > pass.passedAtMs && p.atMs + p.durationMs < settled.madeAtMs,
  ).length;
  return between >= 2;
}

export function checkPaymentEvents(
  published: readonly PublishedEvent[],
  truth: PaymentTruth,
  polls: readonly PollSpan[],
  startedAtMs = 0,
): PaymentCheck {
  const problems: string[] = [];
  let wrong = 0;
  const flag = (text: string) => {
    wrong++;
    problems.push(text);
  };
  const events: Record<string, number> = {};
  const unique = new Map<string, PaymentDetail>();
  let lines = 0;
  for (const e of published) {
    const match = PAYMENT_TYPE.exec(e['detail-type']);
    if (!match) continue;
    lines++;
    events[e['detail-type']] = (events[e['detail-type']] ?? 0) + 1;
    const parsed = paymentDetailSchema.safeParse(e.detail);
    if (!parsed.success) {
      flag(
        `${e['detail-type']}: malformed detail: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
      );
      continue;
    }
    const d = parsed.data;
    if (`${d.recordType}.${d.change}` !== e['detail-type'])
      flag(`${e['detail-type']} carries ${d.recordType}.${d.change}`);
    const before = unique.get(d.idempotencyKey);
    if (
      before &&
      JSON.stringify({ ...before, observedAt: '' }) !== JSON.stringify({ ...d, observedAt: '' })
    ) {
      flag(`${d.idempotencyKey}: two events with the same key say different things`);
    }
    unique.set(d.idempotencyKey, d);
  }

  const paymentsOf = new Map<string, Payment[]>();
  for (const p of truth.payments) paymentsOf.set(p.documentId, [...(paymentsOf.get(p.documentId) ?? []), p]);
  const made = new Map(truth.payments.map((p) => [p.liquidationId, p]));

  // Paid / PartiallyPaid: each reports the liquidations new since the previous one of its document.
  const byDocument = new Map<string, PaymentDetail[]>();
  for (const d of unique.values()) {
    if (d.change === 'Overdue') continue;
    byDocument.set(d.id, [...(byDocument.get(d.id) ?? []), d]);
  }
  const reported = new Set<string>();
  for (const [id, list] of byDocument) {
    const own = paymentsOf.get(id) ?? [];
    list.sort((a, b) => a.liquidations.length - b.liquidations.length);
    let known = new Set<string>();
    for (const d of list) {
      const label = `${d.recordType}.${d.change} ${d.documentNumber} (${id})`;
      const ids = new Set(d.liquidations.map((l) => l.id));
      const fresh = d.liquidations.filter((l) => !known.has(l.id) && made.has(l.id));
      if (fresh.length === 0) {
        flag(`${label}: no liquidation the sandbox made is new in it`);
        continue;
      }
      for (const l of fresh) {
        const p = made.get(l.id) as Payment;
        if (p.documentId !== id) flag(`${label}: liquidation ${l.id} belongs to ${p.documentId}`);
        if (cents(l.amount) !== cents(p.amount))
          flag(`${label}: liquidation ${l.id} amount ${l.amount}, expected ${p.amount}`);
        if (l.date.slice(0, 10) !== p.date.slice(0, 10))
          flag(`${label}: liquidation ${l.id} date ${l.date}, expected ${p.date}`);
        if (reported.has(l.id)) flag(`${label}: liquidation ${l.id} reported as new twice`);
        reported.add(l.id);
      }
      const sum = fresh.reduce((s, l) => s + cents(l.amount), 0);
      if (d.amountPaid === undefined || cents(d.amountPaid) !== sum)
        flag(`${label}: amountPaid ${d.amountPaid}, expected ${sum / 100}`);
      // The state it reports is the one after the newest payment it lists; no earlier one left out.
      const newest = own.reduce((last, p, i) => (ids.has(p.liquidationId) ? i : last), -1);
      const latest = own[newest];
      if (!latest) continue;
      const gap = own.slice(0, newest).find((p) => !ids.has(p.liquidationId));
      if (gap) flag(`${label}: lists ${latest.liquidationId} but not the earlier ${gap.liquidationId}`);
      for (const diff of documentDiff(d, latest)) flag(`${label}: ${diff}`);
      if (cents(d.restToPay) !== cents(latest.restAfter))
        flag(`${label}: restToPay ${d.restToPay}, expected ${latest.restAfter}`);
      const expected = latest.restAfter > 0 ? 'PartiallyPaid' : 'Paid';
      if (d.change !== expected) flag(`${label}: expected ${expected}`);
      if (cents(d.paid) !== d.liquidations.reduce((s, l) => s + cents(l.amount), 0))
        flag(`${label}: paid ${d.paid} is not the sum of its liquidations`);
      known = ids;
    }
  }
  let missed = 0;
  for (const p of truth.payments) {
    if (reported.has(p.liquidationId)) continue;
    missed++;
    problems.push(`missed: ${p.kind} payment ${p.liquidationId} of ${p.documentNumber} (${p.amount})`);
  }

  // Overdue: once per document and due date, for a pass of the ground truth.
  const passes = new Map(truth.dueDatePasses.map((p) => [`${p.documentId}@${p.dueDate}`, p]));
  const overdue = new Set<string>();
  for (const d of unique.values()) {
    if (d.change !== 'Overdue') continue;
    const key = `${d.id}@${d.dueDate}`;
    const label = `${d.recordType}.Overdue ${d.documentNumber} due ${d.dueDate}`;
    const pass = passes.get(key);
    if (!pass) {
      flag(`${label}: no such due-date pass in the ground truth`);
      continue;
    }
    if (overdue.has(key)) flag(`${label}: twice`);
    overdue.add(key);
    for (const diff of documentDiff(d, pass)) flag(`${label}: ${diff}`);
    const observed = Date.parse(d.observedAt);
    if (d.daysOverdue !== daysPast(pass.dueDate, observed))
      flag(`${label}: daysOverdue ${d.daysOverdue}, expected ${daysPast(pass.dueDate, observed)}`);
    // Its rest is one the document had: at the pass, or after one of its payments.
    const own = paymentsOf.get(d.id) ?? [];
    const rests = new Set(
      [pass.restToPay, ...own.map((p) => p.restAfter), ...own.map((p) => p.restBefore)].map(cents),
    );
    if (!(d.restToPay > 0) || !rests.has(cents(d.restToPay)))
      flag(`${label}: restToPay ${d.restToPay} is no rest the document had`);
  }
  let required = 0;
  for (const [key, pass] of passes) {
    if (!overdueRequired(pass, truth.payments, polls)) continue;
    required++;
    if (overdue.has(key)) continue;
    missed++;
    problems.push(`missed: Overdue of ${pass.documentNumber} due ${pass.dueDate}`);
  }

  const count = (kind: Payment['kind']) => truth.payments.filter((p) => p.kind === kind).length;
  return {
    events,
    unique: unique.size,
    duplicates: lines - unique.size,
    liquidations: {
      total: truth.payments.length,
      full: count('full'),
      partial: count('partial'),
      over: count('over'),
      under: count('under'),
      afterDueDate: truth.payments.filter((p) => p.afterDueDate).length,
    },
    dueDatePasses: truth.dueDatePasses.length,
    dueDatePassesDuringRun: truth.dueDatePasses.filter((p) => p.passedAtMs >= startedAtMs).length,
    overdueRequired: required,
    missed,
    wrong,
    problems: problems.slice(0, 50),
  };
}
