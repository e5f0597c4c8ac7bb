/**
 * The endpoint catalog: every operation of the accounting service, once per national variant.
 *
 * `cz` holds exactly the operations of the vendor's public OpenAPI description of the Czech
 * service, with their real methods and paths. `sk` holds the Slovak contract's operations: where
 * the public OpenAPI has the same operation its real path is used; paths the contract shows are
 * used verbatim. Both are `assumed: false`. The operations only the Slovak contract names follow
 * the service's visible conventions and are marked `assumed: true`; each can be replaced from
 * configuration (`ACCOUNTING_PATH_OVERRIDES`) without a code change.
 *
 * Path templates use `{name}` placeholders, filled (checked, then URL-encoded) by `buildPath`.
 */
import {
  type CollectionName,
  type CollectionSpec,
  collectionsFor,
  DEFAULT_SERVICE_VARIANT,
  type ServiceVariant,
  serviceVariants,
} from './collections.js';
import { InvalidArgumentError } from './errors.js';
import { COLLECTION_PARAM_PATTERN, isRecordId, RECORD_ID_EXPECTED } from './record-id.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT';

/**
 * What an operation does, which decides how the client may retry it:
 * - `read`     GET, safe to repeat;
 * - `binary`   GET returning a file (PDF, ISDOC), streamed;
 * - `create`   POST that creates a document or record: never blindly repeated;
 * - `transfer` POST that creates a target document from a source: never blindly repeated;
 * - `command`  POST/PUT with a side effect (send, liquidate, update): never blindly repeated.
 */
export type OperationKind = 'read' | 'binary' | 'create' | 'transfer' | 'command';

export interface OperationSpec {
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly kind: OperationKind;
  /** For list operations: the collection read. */
  readonly collection?: CollectionName;
  /** `true` for list operations (paged: `PageSize`, `PageNumber`, `After`, `ModifiedSince`). */
  readonly paged?: boolean;
  /** Paged lists only: the list accepts keyset paging with `After`. */
  readonly acceptsAfter?: boolean;
  readonly assumed: boolean;
  readonly summary: string;
}

function collectionOperations(c: CollectionSpec): OperationSpec[] {
  const assumed = !c.pathShown;
  const ops: OperationSpec[] = [
    {
      id: `${c.name}.list`,
      method: 'GET',
      path: `/v1/${c.name}`,
      kind: 'read',
      collection: c.name as CollectionName,
      paged: true,
      acceptsAfter: c.acceptsAfter,
      assumed,
      summary: `List ${c.name} (paged${c.acceptsAfter ? ', keyset After' : ', page numbers only'}).`,
    },
  ];
  if (c.getById) {
    ops.push({
      id: `${c.name}.get`,
      method: 'GET',
      path: `/v1/${c.name}/{id}`,
      kind: 'read',
      collection: c.name as CollectionName,
      assumed,
      summary: `Get one ${c.recordType} by id.`,
    });
  }
  if (c.pdf) {
    ops.push({
      id: `${c.name}.pdf`,
      method: 'GET',
      path: `/v1/${c.name}/{id}/pdf`,
      kind: 'binary',
      collection: c.name as CollectionName,
      assumed,
      summary: `Export one ${c.recordType} as PDF (query Language=Current|English).`,
    });
  }
  if (c.isdoc) {
    ops.push({
      id: `${c.name}.isdoc`,
      method: 'GET',
      path: `/v1/${c.name}/{id}/isdoc`,
      kind: 'binary',
      collection: c.name as CollectionName,
      assumed,
      summary: `Export one ${c.recordType} as ISDOC (204 while not ready).`,
    });
  }
  if (c.importable) {
    ops.push({
      id: `${c.name}.create`,
      method: 'POST',
      path: `/v1/${c.name}`,
      kind: 'create',
      collection: c.name as CollectionName,
      assumed,
      summary: `Import (create) one ${c.recordType}.`,
    });
  }
  return ops;
}

/** An operation outside the per-collection ones, with the variants that have it. */
type Explicit = OperationSpec & { readonly variants: readonly ServiceVariant[] };

const both = serviceVariants;
const skOnly = ['sk'] as const;
const czOnly = ['cz'] as const;
const invoiceKinds = ['IssuedInvoices', 'IssuedAdvanceInvoices'] as const;
const invoiceWord = (c: (typeof invoiceKinds)[number]) =>
  c === 'IssuedInvoices' ? 'issued invoice' : 'issued advance invoice';

const explicitOperations: readonly Explicit[] = [
  // Address book
  {
    id: 'BusinessPartners.create',
    method: 'POST',
    path: '/v1/BusinessPartners',
    kind: 'create',
    assumed: false,
    variants: both,
    summary: 'Create a business partner (AddressResolutionMode looks data up by registration number).',
  },
  {
    id: 'BusinessPartners.update',
    method: 'PUT',
    path: '/v1/BusinessPartners/{id}',
    kind: 'command',
    assumed: false,
    variants: skOnly,
    summary: 'Update a business partner.',
  },
  {
    id: 'PaymentMethods.create',
    method: 'POST',
    path: '/v1/PaymentMethods',
    kind: 'create',
    assumed: false,
    variants: czOnly,
    summary: 'Create a payment method.',
  },
  // Transfers
  {
    id: 'IssueSlips.transferToIssuedInvoice',
    method: 'POST',
    path: '/v1/IssueSlips/{id}/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    assumed: false,
    variants: skOnly,
    summary: 'Transfer one issue slip fully to an issued invoice.',
  },
  {
    id: 'IssueSlips.transferToIssuedInvoiceBulk',
    method: 'POST',
    path: '/v1/IssueSlips/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    assumed: false,
    variants: skOnly,
    summary: 'Transfer several issue slips fully to one issued invoice.',
  },
  {
    id: 'IssuedOffers.transferToReceivedOrder',
    method: 'POST',
    path: '/v1/IssuedOffers/{id}/Transfer/ToReceivedOrder/Fully',
    kind: 'transfer',
    assumed: false,
    variants: skOnly,
    summary: 'Transfer an issued offer fully to a received order.',
  },
  {
    id: 'ReceivedOrders.transferToIssueSlip',
    method: 'POST',
    path: '/v1/ReceivedOrders/{id}/Transfer/ToIssueSlip/Fully',
    kind: 'transfer',
    assumed: false,
    variants: skOnly,
    summary: 'Transfer a received order fully to an issue slip.',
  },
  {
    id: 'ReceivedOrders.transferToIssuedInvoice',
    method: 'POST',
    path: '/v1/ReceivedOrders/{id}/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    assumed: false,
    variants: czOnly,
    summary: 'Transfer a received order fully to an issued invoice.',
  },
  {
    id: 'IssuedOrders.transferToReceivedInvoice',
    method: 'POST',
    path: '/v1/IssuedOrders/{id}/Transfer/ToReceivedInvoice/Fully',
    kind: 'transfer',
    assumed: false,
    variants: both,
    summary: 'Transfer an issued order fully to a received invoice.',
  },
  {
    id: 'IssuedInvoices.advanceInvoiceDeduction',
    method: 'POST',
    path: '/v1/IssuedInvoices/AdvanceInvoiceDeduction',
    kind: 'command',
    assumed: false,
    variants: skOnly,
    summary: 'Deduct an advance invoice into an issued invoice.',
  },
  // Order status
  ...(['IssuedOrders', 'ReceivedOrders'] as const).map(
    (c): Explicit => ({
      id: `${c}.status`,
      method: 'GET',
      path: `/v1/${c}/{id}/status`,
      kind: 'read',
      assumed: false,
      variants: both,
      summary: `Order status of one ${c === 'IssuedOrders' ? 'issued' : 'received'} order (a bare JSON string).`,
    }),
  ),
  // Payment state and liquidation
  ...invoiceKinds.flatMap((c): Explicit[] => [
    {
      id: `${c}.unpaid`,
      method: 'GET',
      path: `/v1/${c}/Unpaid`,
      kind: 'read',
      paged: true,
      acceptsAfter: true,
      assumed: false,
      variants: both,
      summary: `Payment status (rest to pay, liquidations) of every unpaid ${invoiceWord(c)} (paged).`,
    },
    {
      id: `${c}.restToPay`,
      method: 'GET',
      path: `/v1/${c}/{id}/RestToPay`,
      kind: 'read',
      assumed: false,
      variants: both,
      summary: `Payment status (rest to pay, liquidations) of one ${invoiceWord(c)}.`,
    },
    {
      id: `${c}.liquidation`,
      method: 'GET',
      path: `/v1/${c}/Liquidation/{id}`,
      kind: 'read',
      assumed: false,
      variants: both,
      summary: `One liquidation record of an ${invoiceWord(c)}, by the liquidation's id.`,
    },
    {
      id: `${c}.liquidateStandaloneFully`,
      method: 'POST',
      path: `/v1/${c}/{DocumentId}/Liquidate/Standalone/Fully`,
      kind: 'create',
      assumed: false,
      variants: both,
      summary: `Liquidate an ${invoiceWord(c)} fully without a payment document (body Date, Note; 201 with the liquidation).`,
    },
  ]),
  {
    id: 'IssuedInvoices.liquidateStandalonePartially',
    method: 'POST',
    path: '/v1/IssuedInvoices/{DocumentId}/Liquidate/Standalone/Partially',
    kind: 'create',
    assumed: false,
    variants: both,
    summary:
      'Liquidate part of an issued invoice without a payment document (body Date, Amount, Note; 201 with the liquidation).',
  },
  // Price list
  {
    id: 'PriceListItems.registrationNumbers',
    method: 'GET',
    path: '/v1/PriceListItems/{PriceListItemId}/RegistrationNumbers',
    kind: 'read',
    paged: true,
    acceptsAfter: true,
    assumed: false,
    variants: both,
    summary: 'Registration (serial) numbers of one price-list item (paged).',
  },
  {
    id: 'PriceListItems.availableQuantities',
    method: 'POST',
    path: '/v1/PriceListItems/AvailableQuantities',
    kind: 'read',
    assumed: false,
    variants: both,
    summary: 'Available quantities of the price-list items given by id (body Ids; a read, safe to repeat).',
  },
  {
    id: 'PriceListItems.sellingPrices',
    method: 'POST',
    path: '/v1/PriceListItems/SellingPrices',
    kind: 'read',
    assumed: false,
    variants: both,
    summary: 'Selling prices of the price-list items given by id (body Ids; a read, safe to repeat).',
  },
  // Bank documents
  ...(
    [
      ['createReceipt', 'Receipts', 'Import a bank receipt document.'],
      ['createPayment', 'Payments', 'Import a bank payment document.'],
      [
        'createReceiptWithLiquidation',
        'Receipts/WithLiquidation',
        'Import a bank receipt together with the liquidation of the documents it pays.',
      ],
      [
        'createPaymentWithLiquidation',
        'Payments/WithLiquidation',
        'Import a bank payment together with the liquidation of the documents it pays.',
      ],
    ] as const
  ).map(
    ([name, path, summary]): Explicit => ({
      id: `BankDocuments.${name}`,
      method: 'POST',
      path: `/v1/BankDocuments/${path}`,
      kind: 'create',
      assumed: true,
      variants: skOnly,
      summary,
    }),
  ),
  // Sending
  {
    id: 'Documents.sendEmail',
    method: 'POST',
    path: '/v1/{collection}/{id}/Send/Email',
    kind: 'command',
    assumed: true,
    variants: skOnly,
    summary: 'Send a document by e-mail (body To, Cc, Subject, Body).',
  },
  {
    id: 'Documents.sendEInvoice',
    method: 'POST',
    path: '/v1/{collection}/{id}/Send/EInvoice',
    kind: 'command',
    assumed: true,
    variants: skOnly,
    summary: 'Send a document through the e-invoicing network; answers with a SendingId.',
  },
  {
    id: 'EInvoicing.status',
    method: 'GET',
    path: '/v1/EInvoicing/Sendings/{sendingId}',
    kind: 'read',
    assumed: true,
    variants: skOnly,
    summary: 'Status of one e-invoicing network sending (transport state and invoice-response code).',
  },
];

interface Catalog {
  readonly list: readonly OperationSpec[];
  readonly byId: ReadonlyMap<string, OperationSpec>;
}

function catalogOf(variant: ServiceVariant): Catalog {
  const list: OperationSpec[] = [
    ...collectionsFor(variant).flatMap(collectionOperations),
    ...explicitOperations
      .filter((o) => o.variants.includes(variant))
      .map(({ variants: _variants, ...op }) => op),
  ];
  return { list, byId: new Map(list.map((o) => [o.id, o])) };
}

const catalogs: Record<ServiceVariant, Catalog> = { sk: catalogOf('sk'), cz: catalogOf('cz') };

/** Every operation of one variant, in a stable order. */
export function operationsFor(variant: ServiceVariant): readonly OperationSpec[] {
  return catalogs[variant].list;
}

/** Every operation of the default variant (`sk`), in a stable order. */
export const operations: readonly OperationSpec[] = operationsFor(DEFAULT_SERVICE_VARIANT);

export function findOperation(
  id: string,
  variant: ServiceVariant = DEFAULT_SERVICE_VARIANT,
): OperationSpec | undefined {
  return catalogs[variant].byId.get(id);
}

/**
 * Returns the variant's catalog with `overrides` (operation id → path template) applied.
 * Unknown ids (for that variant) throw.
 */
export function resolveOperations(
  variant: ServiceVariant = DEFAULT_SERVICE_VARIANT,
  overrides: Readonly<Record<string, string>> = {},
): Map<string, OperationSpec> {
  const resolved = new Map(catalogs[variant].byId);
  for (const [id, path] of Object.entries(overrides)) {
    const op = resolved.get(id);
    if (!op) throw new Error(`path override names unknown operation '${id}' (variant ${variant})`);
    resolved.set(id, { ...op, path });
  }
  return resolved;
}

/**
 * Fills `{name}` placeholders from `params`. Each value is checked before it is encoded: `{collection}`
 * takes a catalog name, every other placeholder a record id of the service's shape (a GUID), so no
 * value can change which path is requested (`..`, `/`, `%2e`, …). Throws `InvalidArgumentError`
 * naming the parameter, never echoing the value.
 */
export function buildPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) {
      throw new InvalidArgumentError(`params.${name}`, `the path parameter '${name}' of ${template}`);
    }
    if (name === 'collection') {
      if (!COLLECTION_PARAM_PATTERN.test(value)) {
        throw new InvalidArgumentError(`params.${name}`, 'a collection name of the catalog');
      }
    } else if (!isRecordId(value)) {
      throw new InvalidArgumentError(`params.${name}`, RECORD_ID_EXPECTED);
    }
    return encodeURIComponent(value);
  });
}
