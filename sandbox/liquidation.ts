/**
 * Payment state of issued invoices and advance invoices, with the real meaning:
 * - a liquidation is a record of its own (`LiquidationDto`: Id, IssuedInvoiceId, amounts, Date,
 *   Note), read by ITS id through `GET …/Liquidation/{id}`;
 * - `GET …/{id}/RestToPay` and `GET …/Unpaid` answer `DocumentPaymentStatusDto` (Id, Number,
 *   RestToPay, LiquidationInfos, ModificationInfo);
 * - `POST …/{DocumentId}/Liquidate/Standalone/Fully|Partially` creates a liquidation (201 with
 *   `Data`/`Warnings`).
 * Seeded invoices are paid deterministically by their id: ~50 % fully, ~10 % half. Slovak-contract
 * bank documents (assumed) liquidate the documents they reference.
 */
import * as z from 'zod';
import type { ApiRecord } from '../functions/accounting/api.js';
import { findCollection } from '../functions/accounting/collections.js';
import { iso } from './documents.js';
import { type Created, type DomainContext, requireLatest, today, type Warning } from './domain-context.js';
import { notFound, validationError } from './http.js';
import { type DueDatePass, documentTotal, type PaymentMade, PaymentTruth } from './payment-truth.js';
import { GUID_PATTERN, hashString, mix, money, Rng } from './random.js';
import { fullModificationInfo, SANDBOX_USER_ID } from './reference-data.js';
import { validate } from './validation.js';

const guid = z.string().regex(GUID_PATTERN, 'must be a GUID');
const dateTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date-time');
const fullSchema = z.looseObject({ Date: dateTime.nullish(), Note: z.string().nullish() }).nullish();
const partialSchema = z.looseObject({
  Date: dateTime.nullish(),
  Note: z.string().nullish(),
  HomeCurrencyAmount: z.number().gt(0).nullish(),
  DocumentCurrencyAmount: z.number().gt(0),
});
const bankDocumentSchema = z.looseObject({
  IssueDate: dateTime.nullish(),
  BankAccountId: guid.nullish(),
  Text: z.string().nullish(),
  Items: z
    .array(
      z.looseObject({
        Amount: z.number().gt(0),
        Text: z.string().nullish(),
        VariableSymbol: z.string().nullish(),
        DocumentId: guid.nullish(),
        Collection: z.string().nullish(),
      }),
    )
    .min(1),
});

export interface Liquidation {
  Id: string;
  IssuedInvoiceId: string;
  HomeCurrencyAmount: number;
  DocumentCurrencyAmount: number;
  Date: string;
  Note: string | null;
  ModificationInfo: Record<string, string>;
}

interface Entry {
  collection: string;
  liquidation: Liquidation;
}

const DAY_MS = 86_400_000;

export class Liquidations {
  /** Liquidations made through the API (and materialised seeded ones), by liquidation id. */
  private byId = new Map<string, Entry>();
  /** Liquidation ids per document id, in order. */
  private byDocument = new Map<string, string[]>();
  bankDocuments = new Map<string, ApiRecord>();
  /** The ground truth of the payments made and the due dates passed (`payment-truth.ts`). */
  readonly truth: PaymentTruth;

  constructor(private readonly ctx: DomainContext) {
    this.truth = new PaymentTruth(
      ctx,
      (collection, record) => this.paymentStatus(collection, record).RestToPay,
    );
  }

  /** Every payment made since the start (or the last reset), in order: the ground truth of payments. */
  get payments(): PaymentMade[] {
    return this.truth.payments;
  }

  /** Every due date seen passed with something to pay, in the order recorded (append-only). */
  get dueDatePasses(): DueDatePass[] {
    return this.truth.dueDatePasses;
  }

  /** Records the due dates passed with something to pay (`PaymentTruth.sweepOverdue`). */
  sweepOverdue(only?: { collection: string; id: string }): void {
    this.truth.sweepOverdue(only);
  }

  reset(): void {
    this.byId.clear();
    this.byDocument.clear();
    this.bankDocuments.clear();
    this.truth.reset();
  }

  /** Moves an unpaid document's due date on by `days` (payment terms extended); false when it has none. */
  moveDueDate(collection: string, id: string, days: number): boolean {
    const record = this.ctx.state.getLatest(collection, id);
    const due = typeof record?.DueDate === 'string' ? record.DueDate : undefined;
    if (!record || !due || Number.isNaN(Date.parse(`${due.slice(0, 10)}T00:00:00Z`))) return false;
    this.sweepOverdue({ collection, id });
    const moved = `${new Date(Date.parse(`${due.slice(0, 10)}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)}${due.slice(10)}`;
    this.ctx.state.update(collection, id, (r) => {
      r.DueDate = moved;
    });
    this.truth.dueDateSet(id);
    this.sweepOverdue({ collection, id });
    return true;
  }

  /** The seeded payment of a document, materialised on first use (deterministic by its id). */
  private seeded(collection: string, record: ApiRecord): string[] {
    const created = Date.parse(String(record.ModificationInfo?.CreatedDate ?? ''));
    const roll = hashString(record.Id) % 10;
    if (!(created < this.ctx.state.settings.anchorMs) || roll >= 6) return [];
    const total = documentTotal(record);
    const amount = roll === 5 ? money(total / 2) : total;
    const rng = new Rng(mix(hashString(record.Id), 0x11a));
    const date = String(record.DueDate ?? record.IssueDate);
    const id = rng.guid();
    const at = Date.parse(date.endsWith('Z') ? date : `${date}Z`);
    this.byId.set(id, {
      collection,
      liquidation: this.liquidation(id, record, amount, date, null, fullModificationInfo(at, at)),
    });
    return [id];
  }

  private liquidation(
    id: string,
    record: ApiRecord,
    amount: number,
    date: string,
    note: string | null,
    info: Record<string, string>,
  ): Liquidation {
    const rate = Number(record.ExchangeRate ?? 0);
    const quantity = Number(record.ExchangeRateQuantity ?? 1) || 1;
    const home = rate > 0 ? money((amount / rate) * quantity) : amount;
    return {
      Id: id,
      IssuedInvoiceId: record.Id,
      HomeCurrencyAmount: home,
      DocumentCurrencyAmount: amount,
      Date: date,
      Note: note,
      ModificationInfo: info,
    };
  }

  private idsOf(collection: string, record: ApiRecord): string[] {
    let ids = this.byDocument.get(record.Id);
    if (!ids) {
      ids = this.seeded(collection, record);
      this.byDocument.set(record.Id, ids);
    }
    return ids;
  }

  /** `DocumentPaymentStatusDto` of one document. */
  paymentStatus(collection: string, record: ApiRecord) {
    const entries = this.idsOf(collection, record).map((id) => (this.byId.get(id) as Entry).liquidation);
    const paid = money(entries.reduce((s, e) => s + e.DocumentCurrencyAmount, 0));
    return {
      Id: record.Id,
      Number: String(record.DocumentNumber ?? ''),
      RestToPay: Math.max(0, money(documentTotal(record) - paid)),
      LiquidationInfos: entries.map((e) => ({
        Id: e.Id,
        Date: e.Date,
        DocumentCurrencyAmount: e.DocumentCurrencyAmount,
      })),
      ModificationInfo: record.ModificationInfo,
    };
  }

  /** `GET …/Liquidation/{id}`: one liquidation of a document of `collection`, by the liquidation's id. */
  get(collection: string, id: string): Liquidation {
    if (!GUID_PATTERN.test(id)) throw notFound();
    const entry = this.byId.get(id.toLowerCase()) ?? this.findSeeded(collection, id.toLowerCase());
    if (!entry || entry.collection !== collection) throw notFound(`Liquidation '${id}' does not exist.`);
    return entry.liquidation;
  }

  /** Seeded liquidations are materialised on demand; a lookup by id walks the documents once. */
  private findSeeded(collection: string, id: string): Entry | undefined {
    for (const docId of this.ctx.state.collection(collection).entries.map((e) => e.id)) {
      if (this.byDocument.has(docId)) continue;
      const record = this.ctx.state.get(collection, docId);
      if (record) this.idsOf(collection, record);
      const found = this.byId.get(id);
      if (found) return found;
    }
    return undefined;
  }

  private add(
    collection: string,
    record: ApiRecord,
    amount: number,
    date: string,
    note: string | null,
    kind?: PaymentMade['kind'],
  ): Liquidation {
    const ids = this.idsOf(collection, record);
    this.sweepOverdue({ collection, id: record.Id });
    const restBefore = this.paymentStatus(collection, record).RestToPay;
    const stamp = this.ctx.state.stamp();
    const liquidation = this.liquidation(
      this.ctx.rng().guid(),
      record,
      amount,
      date,
      note,
      fullModificationInfo(stamp, stamp),
    );
    liquidation.ModificationInfo.CreatedBy = SANDBOX_USER_ID;
    this.byId.set(liquidation.Id, { collection, liquidation });
    this.byDocument.set(record.Id, [...ids, liquidation.Id]);
    this.ctx.state.update(collection, record.Id, () => {}); // a liquidation is a change of the document
    this.truth.recordPayment(collection, record, {
      liquidationId: liquidation.Id,
      amount,
      kind: kind ?? (amount > restBefore ? 'over' : amount === restBefore ? 'full' : 'partial'),
      afterDueDate: typeof record.DueDate === 'string' && date.slice(0, 10) > record.DueDate.slice(0, 10),
      restBefore,
      restAfter: this.paymentStatus(collection, record).RestToPay,
      date,
      madeAtMs: this.ctx.now(),
    });
    return liquidation;
  }

  /** Rest to pay of a document (its latest version); `undefined` when it does not exist. */
  restOf(collection: string, id: string): number | undefined {
    const record = this.ctx.state.getLatest(collection, id);
    return record ? this.paymentStatus(collection, record).RestToPay : undefined;
  }

  /**
   * A payment received from outside (a bank transfer as the activity generator makes it): any
   * positive amount, so over- and under-payments happen; `date` defaults to the clock's day.
   */
  pay(
    collection: string,
    id: string,
    amount: number,
    options: { date?: string; kind?: PaymentMade['kind'] } = {},
  ): Liquidation {
    if (!(amount > 0)) throw validationError('Amount', "'Amount' must be greater than '0'.");
    const record = requireLatest(this.ctx, collection, id);
    return this.add(
      collection,
      record,
      money(amount),
      options.date ?? today(this.ctx.now()),
      null,
      options.kind,
    );
  }

  /** `POST …/{DocumentId}/Liquidate/Standalone/Fully`. */
  liquidateFully(collection: string, id: string, body: unknown): { Data: Liquidation; Warnings: Warning[] } {
    const input = validate(fullSchema, body);
    const record = requireLatest(this.ctx, collection, id);
    const rest = this.paymentStatus(collection, record).RestToPay;
    if (rest <= 0)
      throw validationError(
        'DocumentId',
        `Document '${String(record.DocumentNumber)}' is already liquidated.`,
      );
    const data = this.add(
      collection,
      record,
      rest,
      input?.Date ?? today(this.ctx.now()),
      input?.Note ?? null,
    );
    return { Data: data, Warnings: [] };
  }

  /** `POST …/{DocumentId}/Liquidate/Standalone/Partially`. */
  liquidatePartially(
    collection: string,
    id: string,
    body: unknown,
  ): { Data: Liquidation; Warnings: Warning[] } {
    const input = validate(partialSchema, body);
    const record = requireLatest(this.ctx, collection, id);
    const rest = this.paymentStatus(collection, record).RestToPay;
    if (input.DocumentCurrencyAmount > rest) {
      throw validationError(
        'DocumentCurrencyAmount',
        `'DocumentCurrencyAmount' must be less than or equal to '${rest}'.`,
      );
    }
    const data = this.add(
      collection,
      record,
      input.DocumentCurrencyAmount,
      input.Date ?? today(this.ctx.now()),
      input.Note ?? null,
    );
    if (input.HomeCurrencyAmount) data.HomeCurrencyAmount = input.HomeCurrencyAmount;
    return { Data: data, Warnings: [] };
  }

  /** `POST /v1/BankDocuments/{Receipts|Payments}[/WithLiquidation]` (Slovak contract, assumed). */
  createBankDocument(kind: 'Receipt' | 'Payment', withLiquidation: boolean, body: unknown): Created {
    const input = validate(bankDocumentSchema, body);
    const liquidated: { collection: string; record: ApiRecord; amount: number }[] = [];
    if (withLiquidation) {
      input.Items.forEach((item, i) => {
        if (!item.DocumentId)
          throw validationError(`Items[${i}].DocumentId`, "'DocumentId' must not be empty.");
      });
      input.Items.forEach((item, i) => {
        const fallback = kind === 'Receipt' ? 'IssuedInvoices' : 'ReceivedInvoices';
        const collection = findCollection(item.Collection ?? fallback)?.name;
        const record = collection ? this.ctx.state.getLatest(collection, String(item.DocumentId)) : undefined;
        if (!collection || !record)
          throw notFound(`Items[${i}]: document '${String(item.DocumentId)}' does not exist.`);
        liquidated.push({ collection, record, amount: item.Amount });
      });
    }
    const now = this.ctx.now();
    const number = `BV${new Date(now).getUTCFullYear()}${String(this.bankDocuments.size + 1).padStart(6, '0')}`;
    const stamp = iso(this.ctx.state.stamp());
    const record: ApiRecord = {
      Id: this.ctx.rng().guid(),
      DocumentNumber: number,
      Kind: kind,
      IssueDate: input.IssueDate ?? today(now),
      BankAccountId: input.BankAccountId ?? this.ctx.state.refs.bankAccountIds[0] ?? null,
      Text: input.Text ?? null,
      Items: input.Items.map((i) => ({ Id: this.ctx.rng().guid(), ...i })),
      TotalAmount: money(input.Items.reduce((s, i) => s + i.Amount, 0)),
      ModificationInfo: { CreatedDate: stamp, ModifiedDate: stamp },
    };
    for (const l of liquidated) this.add(l.collection, l.record, l.amount, String(record.IssueDate), number);
    this.bankDocuments.set(record.Id, record);
    return { Data: record, Warnings: [] };
  }
}
