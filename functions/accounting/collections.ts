/**
 * The collections of the accounting service: one row per readable list.
 *
 * This table is the single source of truth for which lists exist, how they page,
 * whether their records carry `ModificationInfo` (and so can be polled with
 * `ModifiedSince`), and which record-type name our events use for them.
 * The endpoint catalog (`endpoints.ts`) derives its list / by-id / PDF / import
 * operations from it; the sandbox and the poller read it too.
 */

export type CollectionKind = 'reference' | 'addressBook' | 'document';

export interface CollectionSpec {
  /** Path segment under `/v1`, e.g. `IssuedInvoices`. */
  readonly name: string;
  /** Record type name used in event detail-types, e.g. `IssuedInvoice`. */
  readonly recordType: string;
  readonly kind: CollectionKind;
  /** Accepts keyset paging with `After` (ordered by `Id`); otherwise page numbers. */
  readonly acceptsAfter: boolean;
  /** Records carry `ModificationInfo`, so the list accepts a meaningful `ModifiedSince`. */
  readonly modificationInfo: boolean;
  /** `GET /v1/<name>/{id}` exists. */
  readonly getById: boolean;
  /** `GET /v1/<name>/{id}/pdf` exists. */
  readonly pdf: boolean;
  /** `GET /v1/<name>/{id}/isdoc` exists. */
  readonly isdoc: boolean;
  /** `POST /v1/<name>` creates a record (document import). */
  readonly importable: boolean;
  /** The contract shows this list's path; `false` means the path follows the visible conventions (assumed). */
  readonly pathShown: boolean;
}

type Row = Omit<CollectionSpec, 'kind'>;

const reference = (
  name: string,
  recordType: string,
  opts: Partial<Pick<CollectionSpec, 'acceptsAfter' | 'getById' | 'pathShown'>> = {},
): CollectionSpec => ({
  name,
  recordType,
  kind: 'reference',
  acceptsAfter: opts.acceptsAfter ?? false,
  modificationInfo: false,
  getById: opts.getById ?? true,
  pdf: false,
  isdoc: false,
  importable: false,
  pathShown: opts.pathShown ?? false,
});

const document = (
  name: string,
  recordType: string,
  opts: Partial<Pick<Row, 'pdf' | 'isdoc' | 'importable' | 'pathShown'>> = {},
): CollectionSpec => ({
  name,
  recordType,
  kind: 'document',
  acceptsAfter: true,
  modificationInfo: true,
  getById: true,
  pdf: opts.pdf ?? true,
  isdoc: opts.isdoc ?? false,
  importable: opts.importable ?? false,
  pathShown: opts.pathShown ?? false,
});

export const collections = [
  // Reference lists (section 1 of the contract). Only the first six paths are shown.
  reference('Activities', 'Activity', { acceptsAfter: true, pathShown: true }),
  reference('BankAccounts', 'BankAccount', { acceptsAfter: true, pathShown: true }),
  reference('Banks', 'Bank', { acceptsAfter: false, pathShown: true }),
  {
    name: 'BusinessPartners',
    recordType: 'BusinessPartner',
    kind: 'addressBook',
    acceptsAfter: true,
    modificationInfo: true,
    getById: true,
    pdf: false,
    isdoc: false,
    importable: false, // created through its own operation (BusinessPartners.create), not a document import
    pathShown: true,
  },
  reference('CashRegisters', 'CashRegister', { acceptsAfter: true, pathShown: true }),
  reference('Centres', 'Centre', { acceptsAfter: true, getById: false, pathShown: true }),
  reference('CityPostCodes', 'CityPostCode'),
  reference('Countries', 'Country'),
  reference('Currencies', 'Currency'),
  reference('Establishments', 'Establishment'),
  reference('ExchangeRates', 'ExchangeRate'),
  reference('PaymentMethodTypes', 'PaymentMethodType'),
  reference('PaymentMethods', 'PaymentMethod'),
  reference('PriceListItems', 'PriceListItem'),
  reference('RegistrationNumbers', 'RegistrationNumber'),
  reference('SellingPrices', 'SellingPrice'),
  reference('VatRates', 'VatRate'),
  reference('VatClassifications', 'VatClassification', { pathShown: true }),
  reference('Regions', 'Region'),
  // Exported documents (section 1): eleven types.
  document('IssuedAdvanceInvoices', 'IssuedAdvanceInvoice', {
    isdoc: true,
    importable: true,
    pathShown: true,
  }),
  document('IssuedInvoices', 'IssuedInvoice', { isdoc: true, importable: true, pathShown: true }),
  document('IssuedCreditNotes', 'IssuedCreditNote'),
  document('IssuedDebitNotes', 'IssuedDebitNote'),
  document('IssuedOffers', 'IssuedOffer', { importable: true, pathShown: true }),
  document('IssueSlips', 'IssueSlip', { importable: true, pathShown: true }),
  document('ReceivedInvoices', 'ReceivedInvoice', { importable: true }),
  document('ReceivedOrders', 'ReceivedOrder', { importable: true, pathShown: true }),
  document('IssuedOrders', 'IssuedOrder', { importable: true }),
  document('IssuedTaxDocuments', 'IssuedTaxDocument'),
  document('OtherLiabilities', 'OtherLiability', { importable: true, pdf: false }),
] as const satisfies readonly CollectionSpec[];

export type CollectionName = (typeof collections)[number]['name'];
export type RecordType = (typeof collections)[number]['recordType'];

const byName = new Map<string, CollectionSpec>(collections.map((c) => [c.name.toLowerCase(), c]));
const byRecordType = new Map<string, CollectionSpec>(collections.map((c) => [c.recordType, c]));

export const collectionNames: readonly CollectionName[] = collections.map((c) => c.name);

/** Looks a collection up by its path segment, case-insensitively (the service's paths are). */
export function findCollection(name: string): CollectionSpec | undefined {
  return byName.get(name.toLowerCase());
}

export function collectionOf(recordType: string): CollectionSpec | undefined {
  return byRecordType.get(recordType);
}

export function isCollectionName(name: string): name is CollectionName {
  return collections.some((c) => c.name === name);
}

/** What the poller watches unless told otherwise: every exported document type and the address book. */
export const defaultPolledCollections: readonly CollectionName[] = collections
  .filter((c) => c.kind !== 'reference')
  .map((c) => c.name);
