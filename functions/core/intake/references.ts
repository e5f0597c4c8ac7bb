/**
 * What the mapping needs from the service, read through the client and cached for a while:
 * the connection's VAT rates (percent → VAT rate type), price-list items by code, currencies by
 * ISO code, and the address book (partner by registration number or e-mail).
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { VatRateTypeEnum } from '#functions/accounting/request-schemas.js';
import type { Clock } from '../ports.js';

export type VatRateType = (typeof VatRateTypeEnum.options)[number];
const vatRateTypes: readonly string[] = VatRateTypeEnum.options;

export interface VatRateRef {
  type: VatRateType;
  percent: number;
  validFrom?: number;
  validTo?: number;
}

export interface IntakeReferences {
  vatRates: VatRateRef[];
  /** Upper-case code → price-list item id. */
  priceListItems: Map<string, string>;
  /** ISO code → currency id and whether it is the home currency. */
  currencies: Map<string, { id: string; home: boolean }>;
  /** Normalised registration number → partner id. */
  partnersByRegistrationNumber: Map<string, string>;
  /** Lower-case e-mail → partner id. */
  partnersByEmail: Map<string, string>;
}

export const normaliseRegistrationNumber = (v: string): string => v.replace(/\s+/g, '').toUpperCase();

const str = (r: ApiRecord, field: string): string | undefined =>
  typeof r[field] === 'string' && (r[field] as string).trim() !== ''
    ? (r[field] as string).trim()
    : undefined;
const time = (v: unknown): number | undefined => {
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
};

function vatRateOf(r: ApiRecord): VatRateRef | undefined {
  const type = r.VatRateType;
  // The public DTO names the percentage `VatPercent`; some answers carry `Percentage`.
  const percent = typeof r.VatPercent === 'number' ? r.VatPercent : r.Percentage;
  if (typeof type !== 'string' || !vatRateTypes.includes(type)) return undefined;
  if (typeof percent !== 'number') return undefined;
  const validFrom = time(r.ValidFrom);
  const validTo = time(r.ValidTo);
  return {
    type: type as VatRateType,
    percent,
    ...(validFrom !== undefined ? { validFrom } : {}),
    ...(validTo !== undefined ? { validTo } : {}),
  };
}

export async function loadReferences(api: AccountingApi): Promise<IntakeReferences> {
  const refs: IntakeReferences = {
    vatRates: [],
    priceListItems: new Map(),
    currencies: new Map(),
    partnersByRegistrationNumber: new Map(),
    partnersByEmail: new Map(),
  };
  for await (const r of api.listItems('VatRates')) {
    const rate = vatRateOf(r);
    if (rate) refs.vatRates.push(rate);
  }
  for await (const r of api.listItems('PriceListItems')) {
    const code = str(r, 'Code');
    if (code) refs.priceListItems.set(code.toUpperCase(), r.Id);
  }
  for await (const r of api.listItems('Currencies')) {
    const code = str(r, 'Code');
    if (code) refs.currencies.set(code.toUpperCase(), { id: r.Id, home: r.IsHomeCurrency === true });
  }
  for await (const r of api.listItems('BusinessPartners')) {
    const ico = str(r, 'IdentificationNumber');
    const email = str(r, 'Email');
    if (ico) refs.partnersByRegistrationNumber.set(normaliseRegistrationNumber(ico), r.Id);
    if (email) refs.partnersByEmail.set(email.toLowerCase(), r.Id);
  }
  return refs;
}

/** The references, loaded at most once per `ttlSeconds` (one load in flight at a time). */
export function createReferenceCache(api: AccountingApi, clock: Clock, ttlSeconds: number) {
  let cached: { at: number; value: Promise<IntakeReferences> } | undefined;
  return {
    get(): Promise<IntakeReferences> {
      const now = clock.now().getTime();
      if (!cached || now - cached.at > ttlSeconds * 1000) {
        const value = loadReferences(api);
        cached = { at: now, value };
        value.catch(() => {
          if (cached?.value === value) cached = undefined;
        });
      }
      return cached.value;
    },
    /** Forget the cache (a partner or item may have been added since). */
    invalidate(): void {
      cached = undefined;
    },
  };
}
export type ReferenceCache = ReturnType<typeof createReferenceCache>;
