/**
 * The channel of an invoice under the connection's e-invoicing policy (`ACTIONS_EINVOICING`).
 * `mandate-sk`: a partner in Slovakia with a DIČ receives the e-invoice, a partner without a DIČ
 * (B2C) or abroad gets the fallback (`ACTIONS_EINVOICING_FALLBACK`: e-mail or nothing); the partner
 * lists stay as explicit overrides. `lists`: only the listed partners. `off`: no e-invoicing.
 * The partner's data come from the service: the address-book entry the invoice links to, else the
 * invoice's partner block — never from the event.
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { NotFoundError } from '#functions/accounting/errors.js';
import { dicOf, participantIdOf } from '#functions/core/einvoicing/participant.js';
import { stringField } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { defaultEInvoicingPolicy, type EInvoicingPolicy } from './settings.js';

export type Channel = { kind: 'einvoice' } | { kind: 'email'; to?: string };

/** The partner as the service knows it, with the participant id its DIČ gives. */
export interface PartnerFacts {
  id: string | null;
  name: string | null;
  country: string | null;
  dic: string | null;
  /** `0245:<DIČ>`, the Peppol participant id of a Slovak company. */
  participantId: string | null;
  /** Where the facts were read: the address book, or the invoice's partner block. */
  from: 'addressBook' | 'invoice';
}

const slovakCountry = new Set(['SK', 'SVK', 'SLOVENSKO', 'SLOVAKIA', 'SLOVENSKÁ REPUBLIKA']);

/** A country field naming Slovakia; an empty one is the company's own country (domestic). */
export function isSlovak(country: string | null): boolean {
  return country === null || slovakCountry.has(country.trim().toUpperCase());
}

function factsOf(
  source: ApiRecord | Record<string, unknown>,
  from: PartnerFacts['from'],
  id: string | null,
): PartnerFacts {
  const tax = stringField(source, 'TaxIdentificationNumber');
  return {
    id,
    name: stringField(source, 'CompanyName') ?? stringField(source, 'Name'),
    country: stringField(source, 'Country'),
    dic: dicOf(tax),
    participantId: participantIdOf(tax),
    from,
  };
}

/** The invoice's partner: its address-book entry when linked and still there, else the invoice's block. */
export async function partnerOf(api: AccountingApi, invoice: ApiRecord): Promise<PartnerFacts> {
  const block = (invoice.BusinessPartnerAddress ?? {}) as Record<string, unknown>;
  const id = stringField(block, 'BusinessPartnerId');
  if (id) {
    try {
      return factsOf(await api.get('BusinessPartners', id), 'addressBook', id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return factsOf(block, 'invoice', id);
}

/** The invoice's partner from an address book already read (by lower-case `Id`), else the invoice's block. */
export function partnerFromBook(invoice: ApiRecord, book: ReadonlyMap<string, ApiRecord>): PartnerFacts {
  const block = (invoice.BusinessPartnerAddress ?? {}) as Record<string, unknown>;
  const id = stringField(block, 'BusinessPartnerId');
  const entry = id ? book.get(id.toLowerCase()) : undefined;
  return entry ? factsOf(entry, 'addressBook', id) : factsOf(block, 'invoice', id);
}

/** The channel the partner lists choose for this invoice, if any. */
export function listedChannel(
  config: Pick<ActionsConfig, 'sending'>,
  record: ApiRecord,
): Channel | undefined {
  const key = stringField(record, config.sending.partnerField);
  if (key === null) return undefined;
  if (config.sending.einvoicePartners.includes(key)) return { kind: 'einvoice' };
  const email = config.sending.emailPartners.find((p) => p.key === key);
  if (email) return email.to ? { kind: 'email', to: email.to } : { kind: 'email' };
  return undefined;
}

type PolicyConfig = Pick<ActionsConfig, 'sending' | 'variant'>;

/** The connection's e-invoicing policy: its setting, else its variant's default. */
export function einvoicingPolicy(config: PolicyConfig): EInvoicingPolicy {
  return config.sending.einvoicing ?? defaultEInvoicingPolicy(config.variant);
}

/** Whether the policy needs the partner's facts to decide (no list decides first). */
export function needsPartner(config: PolicyConfig, record: ApiRecord): boolean {
  return einvoicingPolicy(config) === 'mandate-sk' && listedChannel(config, record) === undefined;
}

/** The channel of an invoice under the policy; `partner` is needed for `mandate-sk` only. */
export function channelFor(
  config: PolicyConfig,
  record: ApiRecord,
  partner?: PartnerFacts,
): Channel | undefined {
  const einvoicing = einvoicingPolicy(config);
  const { mandateFallback } = config.sending;
  const listed = listedChannel(config, record);
  if (listed) return listed.kind === 'einvoice' && einvoicing === 'off' ? undefined : listed;
  if (einvoicing !== 'mandate-sk' || !partner) return undefined;
  if (partner.participantId !== null && isSlovak(partner.country)) return { kind: 'einvoice' };
  return mandateFallback === 'email' ? { kind: 'email' } : undefined;
}

/** Whether the connection may e-invoice at all under its settings. */
export function einvoicingActive(config: PolicyConfig): boolean {
  const einvoicing = einvoicingPolicy(config);
  const { einvoicePartners } = config.sending;
  return einvoicing === 'mandate-sk' || (einvoicing === 'lists' && einvoicePartners.length > 0);
}
