/**
 * Slovak Peppol participants: a company is addressed by its DIČ (the 10-digit tax number) under
 * the identifier scheme `0245`. The service's `TaxIdentificationNumber` holds either the DIČ or,
 * for a VAT payer, the VAT id (IČ DPH, `SK` + DIČ); both give the same DIČ.
 */

export const SLOVAK_SCHEME = '0245';

const dicPattern = /^\d{10}$/;
const vatIdPattern = /^([A-Z]{2})(\d{8,12})$/;

/** The DIČ inside a tax or VAT identification number, or null when there is none. */
export function dicOf(taxIdentificationNumber: string | null | undefined): string | null {
  if (typeof taxIdentificationNumber !== 'string') return null;
  const compact = taxIdentificationNumber.replace(/\s+/g, '').toUpperCase();
  if (dicPattern.test(compact)) return compact;
  const vat = vatIdPattern.exec(compact);
  if (vat?.[1] === 'SK' && dicPattern.test(vat[2] ?? '')) return vat[2] ?? null;
  return null;
}

/** The VAT identifier (BT-48 / BT-31): a number with an ISO 3166-1 country prefix, else null. */
export function vatIdOf(taxIdentificationNumber: string | null | undefined): string | null {
  if (typeof taxIdentificationNumber !== 'string') return null;
  const compact = taxIdentificationNumber.replace(/\s+/g, '').toUpperCase();
  return vatIdPattern.test(compact) ? compact : null;
}

/** The Peppol participant id `0245:<DIČ>` of a Slovak company, or null without a DIČ. */
export function participantIdOf(taxIdentificationNumber: string | null | undefined): string | null {
  const dic = dicOf(taxIdentificationNumber);
  return dic === null ? null : `${SLOVAK_SCHEME}:${dic}`;
}
