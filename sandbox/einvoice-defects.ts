/**
 * Seeded e-invoicing defects of the Slovak sandbox: a few percent of the issued invoices of
 * partners with a DIČ carry a mistake a company makes in practice (the buyer's DIČ or part of its
 * address missing on the invoice, a line whose net amount does not follow from quantity and price,
 * no reference, a control character pasted into a text), so the e-invoicing
 * pre-flight and the network have something to reject. An edit of such an invoice in the sandbox
 * (`Domain.touch`) repairs it from the address book, as a person fixing it would.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import { money, type Rng } from './random.js';

export const einvoiceDefects = [
  'missingBuyerDic',
  'incompleteAddress',
  'lineArithmetic',
  'missingReference',
  'xmlControlCharacter',
] as const;
export type EInvoiceDefect = (typeof einvoiceDefects)[number];

/** Share of the B2B issued invoices seeded with a defect. */
export const DEFECT_RATE = 0.08;

type Obj = Record<string, unknown>;

/** Whether the invoice's partner is a Slovak company with a DIČ (what the mandate e-invoices). */
export function isDomesticB2b(record: Obj): boolean {
  const address = record.BusinessPartnerAddress as Obj | null | undefined;
  return typeof address?.TaxIdentificationNumber === 'string' && address.Country === 'SK';
}

/** A defect for a new issued invoice, or null for most. */
export function drawDefect(rng: Rng, record: Obj): EInvoiceDefect | null {
  if (!isDomesticB2b(record) || !rng.chance(DEFECT_RATE)) return null;
  return rng.pick(einvoiceDefects);
}

/** Recomputes the recapitulation's sums and total from the items (as the service does on save). */
function resum(record: Obj): void {
  const recap = record.DocumentRecapitulation as Obj;
  const items = record.Items as Obj[];
  const sums = (recap.VatRateSums as Obj[]) ?? [];
  let total = 0;
  for (const s of sums) {
    const of = items.filter((i) => i.VatRateType === s.VatRateType);
    s.PriceWithoutVat = money(of.reduce((a, i) => a + Number(i.PriceWithoutVat ?? 0), 0));
    s.Vat = money(of.reduce((a, i) => a + Number(i.Vat ?? 0), 0));
    s.TotalPrice = money(Number(s.PriceWithoutVat) + Number(s.Vat));
    total = money(total + Number(s.TotalPrice));
  }
  recap.TotalPrice = total;
}

/** Puts the defect into the invoice (its values are the service's after the mistake). */
export function applyDefect(record: Obj, defect: EInvoiceDefect, rng: Rng): void {
  const address = record.BusinessPartnerAddress as Obj;
  const items = record.Items as Obj[];
  switch (defect) {
    case 'missingBuyerDic':
      address.TaxIdentificationNumber = null;
      return;
    case 'incompleteAddress':
      address[rng.pick(['Street', 'PostCode', 'City'])] = null;
      return;
    case 'lineArithmetic': {
      // A line net typed over: the document's sums follow it, the quantity and price do not.
      const item = rng.pick(items);
      const delta = rng.int(100, 999) / 100;
      item.PriceWithoutVat = money(Number(item.PriceWithoutVat) + delta);
      item.PriceWithVat = money(Number(item.PriceWithoutVat) + Number(item.Vat));
      resum(record);
      return;
    }
    case 'missingReference':
      // `VariableSymbol` is never null in the service's DTO: an empty one.
      record.VariableSymbol = '';
      record.OrderNumber = null;
      return;
    case 'xmlControlCharacter': {
      const item = rng.pick(items);
      item.Text = `${String(item.Text ?? '')}\u0007`;
      return;
    }
  }
}

/**
 * A person's fix of an invoice the e-invoicing refused: the buyer block again from the address
 * book, lines recomputed from quantity and price, a due date and a reference, texts cleaned.
 */
export function repairInvoice(
  record: Obj,
  partner: ApiRecord | undefined,
  vatPercent: Readonly<Record<string, number>>,
  dueDays: number,
): void {
  const address = record.BusinessPartnerAddress as Obj | null;
  if (address && partner) {
    for (const key of ['TaxIdentificationNumber', 'Street', 'PostCode', 'City', 'Country']) {
      if (address[key] === null || address[key] === undefined || address[key] === '') {
        address[key] = partner[key] ?? null;
      }
    }
  }
  const items = (record.Items as Obj[] | undefined) ?? [];
  for (const item of items) {
    if (typeof item.Text === 'string') item.Text = item.Text.replace(/\p{Cc}/gu, '');
    const rate = item.UnitPriceVatType === 'ReverseCharge' ? 0 : (vatPercent[String(item.VatRateType)] ?? 0);
    const gross =
      Number(item.Quantity) * Number(item.UnitPrice) * (1 - Number(item.DiscountPercentage ?? 0) / 100);
    if (item.UnitPriceVatType === 'WithVat') {
      const withVat = money(gross);
      item.PriceWithoutVat = money(withVat / (1 + rate / 100));
      item.Vat = money(withVat - Number(item.PriceWithoutVat));
    } else {
      item.PriceWithoutVat = money(gross);
      item.Vat = money((Number(item.PriceWithoutVat) * rate) / 100);
    }
    item.PriceWithVat = money(Number(item.PriceWithoutVat) + Number(item.Vat));
  }
  if (record.DocumentRecapitulation) resum(record);
  if (!record.DueDate && typeof record.IssueDate === 'string') {
    const due = Date.parse(`${record.IssueDate.slice(0, 10)}T00:00:00Z`) + dueDays * 86_400_000;
    record.DueDate = `${new Date(due).toISOString().slice(0, 10)}T00:00:00`;
  }
  if (!record.VariableSymbol && !record.OrderNumber) {
    record.VariableSymbol = String(record.DocumentNumber ?? '')
      .replace(/\D/g, '')
      .slice(-10);
  }
}
