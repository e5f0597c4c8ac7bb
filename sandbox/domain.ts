/**
 * The business behaviour of the sandbox, one facade over the domain modules: imports and the
 * address book (`imports.ts`), transfers (`transfers.ts`), payment state and liquidation
 * (`liquidation.ts`, its ground truth of payments in `payment-truth.ts`), price-list reads
 * (`price-list.ts`) and sending (`sending.ts`). Everything acts on `SandboxState`.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import type { Created, DomainContext } from './domain-context.js';
import { isDomesticB2b, repairInvoice } from './einvoice-defects.js';
import { notFound, ProblemError } from './http.js';
import { createPartner, createPaymentMethod, importDocument, updatePartner } from './imports.js';
import { Liquidations } from './liquidation.js';
import type { ResolvedSandboxOptions } from './options.js';
import { type NetworkVerdict, networkVerdict } from './peppol-network.js';
import { GUID_PATTERN, Rng } from './random.js';
import { type OutboxMessage, Sending } from './sending.js';
import type { SandboxState } from './state.js';
import { deductAdvance, transfer, transferSlipsBulk } from './transfers.js';

export type { Created, Warning } from './domain-context.js';
export { addressResolutionModes } from './imports.js';
export { eInvoiceCollections, type OutboxMessage } from './sending.js';

/** Where a source goes when no target is named: the chain of the state's variant. */
const defaultTargets: Record<'sk' | 'cz', Record<string, string>> = {
  sk: {
    ReceivedOrders: 'IssueSlips',
    IssueSlips: 'IssuedInvoices',
    IssuedOffers: 'ReceivedOrders',
    IssuedOrders: 'ReceivedInvoices',
  },
  cz: { ReceivedOrders: 'IssuedInvoices', IssuedOrders: 'ReceivedInvoices' },
};

export class Domain {
  readonly liquidations: Liquidations;
  readonly sending: Sending;
  /** How much of each advance invoice is deducted (Slovak contract's deduction). */
  private readonly deducted = new Map<string, number>();
  private random: Rng;
  private readonly ctx: DomainContext;

  constructor(
    readonly state: SandboxState,
    options: () => ResolvedSandboxOptions,
  ) {
    this.random = new Rng(state.settings.seed ^ 0xd0c);
    this.ctx = { state, rng: () => this.random, now: () => state.nowMs() };
    this.liquidations = new Liquidations(this.ctx);
    this.sending = new Sending(this.ctx, options);
  }

  reset(): void {
    this.liquidations.reset();
    this.sending.reset();
    this.deducted.clear();
    this.random = new Rng(this.state.settings.seed ^ 0xd0c);
  }

  get outbox(): OutboxMessage[] {
    return this.sending.outbox;
  }

  set outbox(messages: OutboxMessage[]) {
    this.sending.outbox = messages;
  }

  get sendings() {
    return this.sending.sendings;
  }

  importDocument(collection: string, body: unknown): Created {
    return importDocument(this.ctx, collection, body);
  }

  createPartner(body: unknown): Created {
    return createPartner(this.ctx, body);
  }

  updatePartner(id: string, body: unknown): ApiRecord {
    return updatePartner(this.ctx, id, body);
  }

  createPaymentMethod(body: unknown): Created {
    return createPaymentMethod(this.ctx, body);
  }

  /** The next step of the variant's chain for a source collection, if it has one. */
  transferTarget(sourceCollection: string): string | undefined {
    return defaultTargets[this.state.settings.variant][sourceCollection];
  }

  /** A full transfer of one source; the target defaults to the next step of the variant's chain. */
  transfer(sourceCollection: string, id: string, body: unknown, targetCollection?: string): Created {
    const target = targetCollection ?? this.transferTarget(sourceCollection) ?? '';
    return transfer(this.ctx, sourceCollection, target, id, body);
  }

  transferSlipsBulk(body: unknown): Created {
    return transferSlipsBulk(this.ctx, body);
  }

  deductAdvance(body: unknown): Created {
    return deductAdvance(this.ctx, this.deducted, body);
  }

  createBankDocument(kind: 'Receipt' | 'Payment', withLiquidation: boolean, body: unknown): Created {
    return this.liquidations.createBankDocument(kind, withLiquidation, body);
  }

  sendEmail(collection: string, id: string, body: unknown) {
    return this.sending.sendEmail(collection, id, body);
  }

  sendEInvoice(collection: string, id: string) {
    return this.sending.sendEInvoice(collection, id);
  }

  eInvoiceStatus(sendingId: string) {
    return this.sending.eInvoiceStatus(sendingId);
  }

  /** Edits a record like a user would (admin API, activity generator, edits while paging). */
  touch(collection: string, id: string, patch?: Record<string, unknown>): ApiRecord | undefined {
    const n = this.random.int(1, 9999);
    return this.state.update(collection, id, (r) => {
      if (patch && Object.keys(patch).length > 0) {
        for (const [k, v] of Object.entries(patch)) if (k !== 'Id' && k !== 'ModificationInfo') r[k] = v;
      } else {
        r.Note = `Upravené (${n})`;
        if (collection === 'IssuedInvoices' && this.state.settings.variant === 'sk') this.repair(r);
      }
    });
  }

  /** An edit of an issued invoice fixes what the e-invoicing refused (`einvoice-defects.ts`). */
  private repair(record: ApiRecord): void {
    const address = record.BusinessPartnerAddress as { BusinessPartnerId?: unknown } | null;
    const partnerId = address?.BusinessPartnerId;
    const partner =
      typeof partnerId === 'string' ? this.state.getLatest('BusinessPartners', partnerId) : undefined;
    const due = Number((partner?.BusinessDetails as { DuePeriod?: number } | undefined)?.DuePeriod ?? 14);
    repairInvoice(record, partner, this.state.refs.national.vatPercent, due);
  }

  /** The network's verdict on every issued invoice now: the e-invoicing ground truth. */
  einvoicingTruth(): {
    id: string;
    documentNumber: string;
    issueDate: string;
    b2b: boolean;
    verdict: NetworkVerdict;
  }[] {
    const percent = this.state.refs.national.vatPercent;
    return this.state.allVisible('IssuedInvoices').map((r) => {
      // B2B as the address book knows the partner (a DIČ missing on the invoice only is a defect).
      const partnerId = (r.BusinessPartnerAddress as { BusinessPartnerId?: unknown } | null)
        ?.BusinessPartnerId;
      const partner =
        typeof partnerId === 'string' ? this.state.get('BusinessPartners', partnerId) : undefined;
      return {
        id: r.Id,
        documentNumber: String(r.DocumentNumber ?? ''),
        issueDate: String(r.IssueDate ?? ''),
        b2b: isDomesticB2b(partner ? { BusinessPartnerAddress: partner } : r),
        verdict: networkVerdict(r, (t) => percent[String(t)] ?? 0),
      };
    });
  }

  /** Raises a problem unless the id is a GUID; used for path ids. */
  static checkId(id: string): void {
    if (id.trim() === '') throw new ProblemError(422, { Id: ["'Id' must not be empty."] });
    if (!GUID_PATTERN.test(id)) throw notFound();
  }
}
