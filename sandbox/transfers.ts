/**
 * Transfers as a state machine: the target document is built from the source's items, and the
 * real item-level links are filled (`ReceivedOrderItemId` on issue-slip and issued-invoice items,
 * `IssuedOfferItemGuid` on received-order items, `IssuedOrderItemId` on received-invoice items).
 * The source becomes `Finished` and its items record the transferred / delivered quantity. No
 * document-level back reference exists on the real service, so none is served here.
 * Also the Slovak contract's bulk slip transfer and advance-invoice deduction.
 */
import * as z from 'zod';
import type { ApiRecord } from '../functions/accounting/api.js';
import {
  buildItem,
  documentNumber,
  documentTypes,
  recapitulation,
  shapeDocument,
  typeSpecificFields,
} from './documents.js';
import { type Created, type DomainContext, requireLatest, today, type Warning } from './domain-context.js';
import { applyDefect, drawDefect } from './einvoice-defects.js';
import { notFound, validationError } from './http.js';
import { GUID_PATTERN, money } from './random.js';
import { validate } from './validation.js';

const guid = z.string().regex(GUID_PATTERN, 'must be a GUID');
const dateTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date-time');

/** The real service's transfer takes no body; the Slovak contract allows `{ IssueDate, Note }`. */
const transferBodySchema = z
  .looseObject({ IssueDate: dateTime.nullish(), Note: z.string().nullish() })
  .nullish();
const bulkTransferSchema = z.looseObject({
  Ids: z.array(guid).min(1),
  IssueDate: dateTime.nullish(),
  Note: z.string().nullish(),
});
const deductionSchema = z.looseObject({
  IssuedInvoiceId: guid,
  IssuedAdvanceInvoiceId: guid,
  Amount: z.number().gt(0).nullish(),
});

/** Transfers that exist: `source>target` → how a target item links to its source item. */
const itemLinks: Record<string, { field: string; from: 'Id' | 'ReceivedOrderItemId' }> = {
  'ReceivedOrders>IssueSlips': { field: 'ReceivedOrderItemId', from: 'Id' },
  'ReceivedOrders>IssuedInvoices': { field: 'ReceivedOrderItemId', from: 'Id' },
  'IssueSlips>IssuedInvoices': { field: 'ReceivedOrderItemId', from: 'ReceivedOrderItemId' },
  'IssuedOffers>ReceivedOrders': { field: 'IssuedOfferItemGuid', from: 'Id' },
  'IssuedOrders>ReceivedInvoices': { field: 'IssuedOrderItemId', from: 'Id' },
};

/** The source item field that records how much went on (`TransferredQuantity` or `DeliveredQuantity`). */
const doneQuantityField: Record<string, string> = {
  IssuedOffers: 'TransferredQuantity',
  IssueSlips: 'TransferredQuantity',
  ReceivedOrders: 'DeliveredQuantity',
  IssuedOrders: 'DeliveredQuantity',
};

const transferable = new Set(['Unfinished', 'PartiallyFinished', 'SentForApproval']);

function checkTransferable(collection: string, record: ApiRecord, field: string): void {
  const status = String(record.Status ?? 'Unfinished');
  if (!transferable.has(status)) {
    throw validationError(
      field,
      `Document '${String(record.DocumentNumber)}' of ${collection} has status '${status}' and cannot be transferred.`,
    );
  }
}

function targetAddress(ctx: DomainContext, source: ApiRecord, warnings: Warning[]) {
  const address = { ...((source.BusinessPartnerAddress as Record<string, unknown> | null) ?? {}) };
  const partnerId = address.BusinessPartnerId;
  if (typeof partnerId === 'string' && !ctx.state.getLatest('BusinessPartners', partnerId)) {
    warnings.push({
      Code: 'BusinessPartnerDoesNotExistAnyMore',
      Message: 'The business partner of the source document no longer exists in the address book.',
    });
  }
  return address;
}

function buildTarget(
  ctx: DomainContext,
  sourceCollection: string,
  sources: ApiRecord[],
  targetCollection: string,
  body: { IssueDate?: string | null; Note?: string | null } | null | undefined,
): Created {
  const link = itemLinks[`${sourceCollection}>${targetCollection}`];
  if (!link) throw notFound();
  const first = sources[0] as ApiRecord;
  const warnings: Warning[] = [];
  const address = targetAddress(ctx, first, warnings);
  const targetInfo = documentTypes[targetCollection];
  if (targetInfo?.received) Object.assign(address, { Email: null, PhoneNumber: null });
  const items = sources.flatMap((s) =>
    ((s.Items as Record<string, unknown>[] | undefined) ?? []).map((item) => ({
      ...item,
      Id: ctx.rng().guid(),
      [link.field]: item[link.from] ?? null,
    })),
  );
  const now = ctx.now();
  const issueMs = body?.IssueDate ? Date.parse(body.IssueDate) : now;
  const year = new Date(issueMs).getUTCFullYear();
  const number = documentNumber(
    targetCollection,
    year,
    ctx.state.nextDocumentNumberSequence(targetCollection),
  );
  const partnerId = address.BusinessPartnerId;
  const partner =
    typeof partnerId === 'string' ? ctx.state.getLatest('BusinessPartners', partnerId) : undefined;
  const duePeriod = Number((partner?.BusinessDetails as { DuePeriod?: number } | undefined)?.DuePeriod ?? 14);
  const typeFields = typeSpecificFields(
    targetCollection,
    number,
    issueMs,
    duePeriod,
    'Unfinished',
    ctx.state.refs,
  );
  if (targetInfo?.invoiceLike && !targetInfo.received) {
    typeFields.OrderNumber = sources.map((s) => s.DocumentNumber).join(', ');
    if (sourceCollection === 'ReceivedOrders') typeFields.OrderDate = first.IssueDate ?? null;
  }
  const exchangeRate = (first.ExchangeRate as number | null) ?? null;
  const values = {
    ...first,
    Id: undefined,
    DocumentNumber: number,
    IssueDate: body?.IssueDate ?? today(now),
    Note: body?.Note ?? null,
    InternalNote: null,
    PaymentMethodId: first.PaymentMethodId ?? ctx.state.refs.paymentFormIds[0] ?? null,
    ...typeFields,
    BusinessPartnerAddress: address,
    Items: items,
    ModificationInfo: {},
    DocumentRecapitulation: recapitulation(items, exchangeRate),
  };
  if (targetCollection === 'IssuedInvoices' && ctx.state.settings.variant === 'sk') {
    const defect = drawDefect(ctx.rng(), values);
    if (defect) applyDefect(values, defect, ctx.rng());
  }
  const target = ctx.state.create(targetCollection, shapeDocument(targetCollection, values));
  const done = doneQuantityField[sourceCollection];
  for (const s of sources) {
    ctx.state.update(sourceCollection, s.Id, (r) => {
      r.Status = 'Finished';
      if (done) for (const item of (r.Items as Record<string, unknown>[]) ?? []) item[done] = item.Quantity;
    });
  }
  return { Data: target, Warnings: warnings };
}

/** `POST /v1/<Source>/{id}/Transfer/To<Target>/Fully`. */
export function transfer(
  ctx: DomainContext,
  sourceCollection: string,
  targetCollection: string,
  id: string,
  body: unknown,
): Created {
  if (!itemLinks[`${sourceCollection}>${targetCollection}`]) throw notFound();
  const input = validate(transferBodySchema, body);
  const source = requireLatest(ctx, sourceCollection, id);
  checkTransferable(sourceCollection, source, 'Status');
  return buildTarget(ctx, sourceCollection, [source], targetCollection, input);
}

/** `POST /v1/IssueSlips/Transfer/ToIssuedInvoice/Fully` with `{ Ids }` (Slovak contract). */
export function transferSlipsBulk(ctx: DomainContext, body: unknown): Created {
  const input = validate(bulkTransferSchema, body);
  const ids = [...new Set(input.Ids.map((i) => i.toLowerCase()))];
  const sources = ids.map((id) => requireLatest(ctx, 'IssueSlips', id));
  sources.forEach((s, i) => {
    checkTransferable('IssueSlips', s, `Ids[${i}]`);
  });
  const partners = new Set(
    sources.map((s) => {
      const a = s.BusinessPartnerAddress as Record<string, unknown> | null;
      return String(a?.BusinessPartnerId ?? a?.CompanyName ?? '');
    }),
  );
  if (partners.size > 1)
    throw validationError('Ids', 'All issue slips must belong to the same business partner.');
  return buildTarget(ctx, 'IssueSlips', sources, 'IssuedInvoices', input);
}

/**
 * `POST /v1/IssuedInvoices/AdvanceInvoiceDeduction` (Slovak contract): negative items per VAT rate.
 * `deducted` keeps how much of each advance invoice is used (the real DTOs carry no such field).
 */
export function deductAdvance(ctx: DomainContext, deducted: Map<string, number>, body: unknown): Created {
  const input = validate(deductionSchema, body);
  const invoice = requireLatest(ctx, 'IssuedInvoices', input.IssuedInvoiceId);
  const advance = requireLatest(ctx, 'IssuedAdvanceInvoices', input.IssuedAdvanceInvoiceId);
  const recap = advance.DocumentRecapitulation as {
    TotalPrice: number;
    VatRateSums: Record<string, unknown>[];
  };
  const total = recap.TotalPrice;
  const already = deducted.get(advance.Id) ?? 0;
  const remaining = money(total - already);
  if (remaining <= 0) {
    throw validationError(
      'IssuedAdvanceInvoiceId',
      `Advance invoice '${String(advance.DocumentNumber)}' is already deducted.`,
    );
  }
  if ((input.Amount ?? 0) > remaining) {
    throw validationError('Amount', `'Amount' must be less than or equal to '${remaining}'.`);
  }
  const amount = Math.min(input.Amount ?? remaining, remaining);
  const share = amount / total;
  const items = [...((invoice.Items as Record<string, unknown>[]) ?? [])];
  for (const sum of recap.VatRateSums) {
    items.push(
      buildItem(ctx.state.refs, ctx.rng().guid(), {
        Text: `Odpočet zálohy ${String(advance.DocumentNumber)}`,
        Quantity: 1,
        UnitPrice: -money(Number(sum.PriceWithoutVat) * share),
        VatRateType: String(sum.VatRateType),
      }),
    );
  }
  const updated = ctx.state.update('IssuedInvoices', invoice.Id, (r) => {
    const shaped = shapeDocument('IssuedInvoices', {
      ...r,
      Items: items,
      DocumentRecapitulation: recapitulation(items, (r.ExchangeRate as number | null) ?? null),
    });
    Object.assign(r, shaped);
  }) as ApiRecord;
  deducted.set(advance.Id, money(already + amount));
  return { Data: updated, Warnings: [] };
}
