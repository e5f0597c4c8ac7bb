/**
 * The collections of the accounting service: one row per readable list, per national variant.
 *
 * This table is the single source of truth for which lists exist, how they page,
 * whether their records carry `ModificationInfo` (and so can be polled with
 * `ModifiedSince`), and which record-type name our events use for them.
 * The endpoint catalog (`endpoints.ts`) derives its list / by-id / PDF / import
 * operations from it; the sandbox and the poller read it too.
 *
 * Two variants of the service exist. `cz` follows the vendor's public OpenAPI description of the
 * Czech service exactly (names, paging, by-id and file exports). `sk` is the Slovak contract: the
 * lists the public OpenAPI has carry their real names and paths there too; the lists only the
 * Slovak contract names (VAT classifications, credit and debit notes, issued tax documents, other
 * liabilities) keep assumed paths and are absent from `cz`.
 */

export const serviceVariants = ['sk', 'cz'] as const;
export type ServiceVariant = (typeof serviceVariants)[number];
export const DEFAULT_SERVICE_VARIANT: ServiceVariant = 'sk';

export type CollectionKind = 'reference' | 'addressBook' | 'document';

/** The record types whose documents the service exports as ISDOC (`GET /v1/<name>/{id}/isdoc`), in both variants. */
export const isdocRecordTypes = [
  'IssuedInvoice',
  'IssuedAdvanceInvoice',
] as const satisfies readonly RecordType[];
export type IsdocRecordType = (typeof isdocRecordTypes)[number];

export function hasIsdoc(recordType: string): recordType is IsdocRecordType {
  return (isdocRecordTypes as readonly string[]).includes(recordType);
}

/** One row of the table; `R` is its record type (literal in the rows, so `RecordType` derives from them). */
export interface CollectionRow<R extends string> {
  /** Path segment under `/v1`, e.g. `IssuedInvoices`. */
  readonly name: CollectionName;
  /** Record type name used in event detail-types, e.g. `IssuedInvoice`. */
  readonly recordType: R;
  readonly kind: CollectionKind;
  /** Accepts keyset paging with `After` (ordered by `Id`); otherwise page numbers. */
  readonly acceptsAfter: boolean;
  /** Records carry `ModificationInfo`, so the list accepts a meaningful `ModifiedSince`. */
  readonly modificationInfo: boolean;
  /** `GET /v1/<name>/{id}` exists. */
  readonly getById: boolean;
  /** `GET /v1/<name>/{id}/pdf` exists. */
  readonly pdf: boolean;
  /** `GET /v1/<name>/{id}/isdoc` exists (the record type is one of `isdocRecordTypes`). */
  readonly isdoc: boolean;
  /** `POST /v1/<name>` creates a record (document import). */
  readonly importable: boolean;
  /**
   * The path is known: the Slovak contract shows it or the public OpenAPI has it. `false` means the
   * path follows the visible conventions (assumed).
   */
  readonly pathShown: boolean;
}

type Opts = Partial<Omit<CollectionRow<string>, 'name' | 'recordType' | 'kind' | 'isdoc'>>;

const reference = <R extends string>(
  name: CollectionName,
  recordType: R,
  opts: Opts = {},
): CollectionRow<R> => ({
  name,
  recordType,
  kind: 'reference',
  acceptsAfter: opts.acceptsAfter ?? false,
  modificationInfo: opts.modificationInfo ?? false,
  getById: opts.getById ?? true,
  pdf: false,
  isdoc: false,
  importable: false,
  pathShown: opts.pathShown ?? true,
});

const document = <R extends string>(
  name: CollectionName,
  recordType: R,
  opts: Opts = {},
): CollectionRow<R> => ({
  name,
  recordType,
  kind: 'document',
  acceptsAfter: true,
  modificationInfo: true,
  getById: true,
  pdf: opts.pdf ?? true,
  isdoc: hasIsdoc(recordType),
  importable: opts.importable ?? false,
  pathShown: opts.pathShown ?? true,
});

const businessPartners: CollectionRow<'BusinessPartner'> = {
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
};

/**
 * Reference lists both variants have (the public OpenAPI lists them all). `After` as the OpenAPI
 * accepts it. In `cz` every list carries `ModificationInfo` (full, or `ModifiedDate` only) and
 * accepts `ModifiedSince`; the `sk` rows keep the contract's view (no modification info on
 * reference lists, so they are re-scanned) until the Slovak service is shown to carry it.
 */
function sharedReferences(modificationInfo: boolean) {
  const keyset = { acceptsAfter: true, modificationInfo };
  const paged = { acceptsAfter: false, modificationInfo };
  return [
    reference('Activities', 'Activity', keyset),
    reference('BankAccounts', 'BankAccount', keyset),
    reference('Banks', 'Bank', paged),
    businessPartners,
    reference('CashRegisters', 'CashRegister', keyset),
    reference('Centres', 'Centre', keyset),
    reference('CityPostCodes', 'CityPostCode', paged),
    reference('Countries', 'Country', paged),
    reference('Currencies', 'Currency', paged),
    reference('Establishments', 'Establishment', keyset),
    reference('ExchangeRates', 'ExchangeRate', paged),
    reference('PaymentMethodTypes', 'PaymentMethodType', paged),
    reference('PaymentMethods', 'PaymentMethod', keyset),
    reference('PriceListItems', 'PriceListItem', keyset),
    reference('RegistrationNumbers', 'RegistrationNumber', keyset),
    reference('SellingPrices', 'SellingPrice', keyset),
    reference('VatRates', 'VatRate', paged),
  ] as const;
}

const skCollections = [
  ...sharedReferences(false),
  // Only the Slovak contract names this list (its list path is shown, nothing else).
  reference('VatClassifications', 'VatClassification'),
  reference('Regions', 'Region'),
  // Exported documents (section 1 of the contract): eleven types.
  document('IssuedAdvanceInvoices', 'IssuedAdvanceInvoice', { importable: true }),
  document('IssuedInvoices', 'IssuedInvoice', { importable: true }),
  document('IssuedCreditNotes', 'IssuedCreditNote', { pathShown: false }),
  document('IssuedDebitNotes', 'IssuedDebitNote', { pathShown: false }),
  document('IssuedOffers', 'IssuedOffer', { importable: true }),
  document('IssueSlips', 'IssueSlip', { importable: true }),
  document('ReceivedInvoices', 'ReceivedInvoice', { importable: true }),
  document('ReceivedOrders', 'ReceivedOrder', { importable: true }),
  document('IssuedOrders', 'IssuedOrder', { importable: true }),
  document('IssuedTaxDocuments', 'IssuedTaxDocument', { pathShown: false }),
  document('OtherLiabilities', 'OtherLiability', { importable: true, pdf: false, pathShown: false }),
] as const;

const czCollections = [
  ...sharedReferences(true),
  reference('Regions', 'Region', { modificationInfo: true }),
  document('IssuedAdvanceInvoices', 'IssuedAdvanceInvoice', { importable: true }),
  document('IssuedInvoices', 'IssuedInvoice', { importable: true }),
  // Credit and debit notes of issued invoices: one list, read only.
  document('IssuedInvoiceCorrectiveTaxDocuments', 'IssuedInvoiceCorrectiveTaxDocument'),
  document('IssuedOffers', 'IssuedOffer', { importable: true }),
  document('IssueSlips', 'IssueSlip', { importable: true }),
  document('ReceivedInvoices', 'ReceivedInvoice', { importable: true }),
  document('ReceivedOrders', 'ReceivedOrder', { importable: true }),
  document('IssuedOrders', 'IssuedOrder', { importable: true }),
] as const;

/** Every record type of either variant, as the rows above name them. */
export type RecordType =
  | (typeof skCollections)[number]['recordType']
  | (typeof czCollections)[number]['recordType'];

/** A row of the table, of any record type. */
export type CollectionSpec = CollectionRow<RecordType>;

const byVariant: Record<ServiceVariant, readonly CollectionSpec[]> = {
  sk: skCollections,
  cz: czCollections,
};

/** The collections of one variant of the service. */
export function collectionsFor(variant: ServiceVariant): readonly CollectionSpec[] {
  return byVariant[variant];
}

/** The collections of the default variant (`sk`). */
export const collections: readonly CollectionSpec[] = skCollections;

/** Every collection name of any variant. */
export const allCollectionNames = [
  ...new Set([...skCollections, ...czCollections].map((c) => c.name)),
] as const;

/** Every collection name of either variant (the rows above hold exactly these). */
export type CollectionName =
  | 'Activities'
  | 'BankAccounts'
  | 'Banks'
  | 'BusinessPartners'
  | 'CashRegisters'
  | 'Centres'
  | 'CityPostCodes'
  | 'Countries'
  | 'Currencies'
  | 'Establishments'
  | 'ExchangeRates'
  | 'PaymentMethodTypes'
  | 'PaymentMethods'
  | 'PriceListItems'
  | 'RegistrationNumbers'
  | 'SellingPrices'
  | 'VatRates'
  | 'VatClassifications'
  | 'Regions'
  | 'IssuedAdvanceInvoices'
  | 'IssuedInvoices'
  | 'IssuedCreditNotes'
  | 'IssuedDebitNotes'
  | 'IssuedInvoiceCorrectiveTaxDocuments'
  | 'IssuedOffers'
  | 'IssueSlips'
  | 'ReceivedInvoices'
  | 'ReceivedOrders'
  | 'IssuedOrders'
  | 'IssuedTaxDocuments'
  | 'OtherLiabilities';

const indexBy = <K>(key: (c: CollectionSpec) => K) =>
  Object.fromEntries(
    serviceVariants.map((v) => [v, new Map(byVariant[v].map((c) => [key(c), c]))]),
  ) as Record<ServiceVariant, Map<K, CollectionSpec>>;
const byName = indexBy((c) => c.name.toLowerCase());
const byRecordType = indexBy<string>((c) => c.recordType);

/** Collection names of the default variant (`sk`). */
export const collectionNames: readonly CollectionName[] = collections.map((c) => c.name);

export function collectionNamesFor(variant: ServiceVariant): readonly CollectionName[] {
  return byVariant[variant].map((c) => c.name);
}

/** Looks a collection up by its path segment, case-insensitively (the service's paths are). */
export function findCollection(
  name: string,
  variant: ServiceVariant = DEFAULT_SERVICE_VARIANT,
): CollectionSpec | undefined {
  return byName[variant].get(name.toLowerCase());
}

export function collectionOf(
  recordType: string,
  variant: ServiceVariant = DEFAULT_SERVICE_VARIANT,
): CollectionSpec | undefined {
  return byRecordType[variant].get(recordType) ?? byRecordType[otherVariant(variant)].get(recordType);
}

const otherVariant = (v: ServiceVariant): ServiceVariant => (v === 'sk' ? 'cz' : 'sk');

/** A collection of either variant (configuration checks the variant's own list where it knows it). */
export function isCollectionName(name: string): name is CollectionName {
  return (allCollectionNames as readonly string[]).includes(name);
}

export function isCollectionOf(variant: ServiceVariant, name: string): name is CollectionName {
  return byVariant[variant].some((c) => c.name === name);
}

/** What the poller watches unless told otherwise: every exported document type and the address book. */
export function defaultPolledCollectionsFor(variant: ServiceVariant): readonly CollectionName[] {
  return byVariant[variant].filter((c) => c.kind !== 'reference').map((c) => c.name);
}

/** The default poll set of the default variant (`sk`). */
export const defaultPolledCollections: readonly CollectionName[] =
  defaultPolledCollectionsFor(DEFAULT_SERVICE_VARIANT);
