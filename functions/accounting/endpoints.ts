/**
 * The endpoint catalog: every operation of the accounting-service contract, once.
 *
 * Paths the contract shows are used verbatim (`assumed: false`). The rest follow the
 * service's visible conventions and are marked `assumed: true`; each can be replaced
 * from configuration (`ACCOUNTING_PATH_OVERRIDES`) without a code change.
 *
 * Path templates use `{name}` placeholders, filled (URL-encoded) by `buildPath`.
 */
import { type CollectionName, type CollectionSpec, collections } from './collections.js';

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
      assumed: false,
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
      assumed: c.name !== 'IssuedInvoices' && c.name !== 'ReceivedOrders' ? assumed : false,
      summary: `Import (create) one ${c.recordType}.`,
    });
  }
  return ops;
}

const explicitOperations: OperationSpec[] = [
  // Address book
  {
    id: 'BusinessPartners.create',
    method: 'POST',
    path: '/v1/BusinessPartners',
    kind: 'create',
    assumed: false,
    summary: 'Create a business partner (AddressResolutionMode looks data up by registration number).',
  },
  {
    id: 'BusinessPartners.update',
    method: 'PUT',
    path: '/v1/BusinessPartners/{id}',
    kind: 'command',
    assumed: false,
    summary: 'Update a business partner.',
  },
  // Transfers
  {
    id: 'IssueSlips.transferToIssuedInvoice',
    method: 'POST',
    path: '/v1/IssueSlips/{id}/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    assumed: false,
    summary: 'Transfer one issue slip fully to an issued invoice.',
  },
  {
    id: 'IssueSlips.transferToIssuedInvoiceBulk',
    method: 'POST',
    path: '/v1/IssueSlips/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    assumed: false,
    summary: 'Transfer several issue slips fully to one issued invoice.',
  },
  {
    id: 'IssuedOffers.transferToReceivedOrder',
    method: 'POST',
    path: '/v1/IssuedOffers/{id}/Transfer/ToReceivedOrder/Fully',
    kind: 'transfer',
    assumed: false,
    summary: 'Transfer an issued offer fully to a received order.',
  },
  {
    id: 'ReceivedOrders.transferToIssueSlip',
    method: 'POST',
    path: '/v1/ReceivedOrders/{id}/Transfer/ToIssueSlip/Fully',
    kind: 'transfer',
    assumed: false,
    summary: 'Transfer a received order fully to an issue slip.',
  },
  {
    id: 'IssuedOrders.transferToReceivedInvoice',
    method: 'POST',
    path: '/v1/IssuedOrders/{id}/Transfer/ToReceivedInvoice/Fully',
    kind: 'transfer',
    assumed: true,
    summary: 'Transfer an issued order fully to a received invoice.',
  },
  {
    id: 'IssuedInvoices.advanceInvoiceDeduction',
    method: 'POST',
    path: '/v1/IssuedInvoices/AdvanceInvoiceDeduction',
    kind: 'command',
    assumed: false,
    summary: 'Deduct an advance invoice into an issued invoice.',
  },
  // Order status
  {
    id: 'IssuedOrders.status',
    method: 'GET',
    path: '/v1/IssuedOrders/{id}/status',
    kind: 'read',
    assumed: true,
    summary: 'Order status enumeration of an issued order.',
  },
  {
    id: 'ReceivedOrders.status',
    method: 'GET',
    path: '/v1/ReceivedOrders/{id}/status',
    kind: 'read',
    assumed: true,
    summary: 'Order status enumeration of a received order.',
  },
  // Liquidation
  ...(['IssuedInvoices', 'IssuedAdvanceInvoices'] as const).flatMap((c): OperationSpec[] => [
    {
      id: `${c}.liquidationState`,
      method: 'GET',
      path: `/v1/${c}/Liquidation/{id}`,
      kind: 'read',
      assumed: true,
      summary: `Liquidation state of one ${c === 'IssuedInvoices' ? 'issued invoice' : 'issued advance invoice'}.`,
    },
    {
      id: `${c}.liquidationStates`,
      method: 'GET',
      path: `/v1/${c}/Liquidation`,
      kind: 'read',
      assumed: true,
      summary: `Liquidation state of all ${c === 'IssuedInvoices' ? 'issued invoices' : 'issued advance invoices'}.`,
    },
  ]),
  {
    id: 'IssuedAdvanceInvoices.liquidateStandalone',
    method: 'POST',
    path: '/v1/IssuedAdvanceInvoices/{id}/Liquidate/Standalone/Fully',
    kind: 'command',
    assumed: true,
    summary: 'Liquidate an issued advance invoice without a link to a payment document (body Date, Note).',
  },
  // Bank documents
  {
    id: 'BankDocuments.createReceipt',
    method: 'POST',
    path: '/v1/BankDocuments/Receipts',
    kind: 'create',
    assumed: true,
    summary: 'Import a bank receipt document.',
  },
  {
    id: 'BankDocuments.createPayment',
    method: 'POST',
    path: '/v1/BankDocuments/Payments',
    kind: 'create',
    assumed: true,
    summary: 'Import a bank payment document.',
  },
  {
    id: 'BankDocuments.createReceiptWithLiquidation',
    method: 'POST',
    path: '/v1/BankDocuments/Receipts/WithLiquidation',
    kind: 'create',
    assumed: true,
    summary: 'Import a bank receipt together with the liquidation of the documents it pays.',
  },
  {
    id: 'BankDocuments.createPaymentWithLiquidation',
    method: 'POST',
    path: '/v1/BankDocuments/Payments/WithLiquidation',
    kind: 'create',
    assumed: true,
    summary: 'Import a bank payment together with the liquidation of the documents it pays.',
  },
  // Sending
  {
    id: 'Documents.sendEmail',
    method: 'POST',
    path: '/v1/{collection}/{id}/Send/Email',
    kind: 'command',
    assumed: true,
    summary: 'Send a document by e-mail (body To, Cc, Subject, Body).',
  },
  {
    id: 'Documents.sendEInvoice',
    method: 'POST',
    path: '/v1/{collection}/{id}/Send/EInvoice',
    kind: 'command',
    assumed: true,
    summary: 'Send a document through the e-invoicing network; answers with a SendingId.',
  },
  {
    id: 'EInvoicing.status',
    method: 'GET',
    path: '/v1/EInvoicing/Sendings/{sendingId}',
    kind: 'read',
    assumed: true,
    summary: 'Status of one e-invoicing network sending (transport state and invoice-response code).',
  },
];

/** Every operation, in a stable order. */
export const operations: readonly OperationSpec[] = [
  ...collections.flatMap(collectionOperations),
  ...explicitOperations,
];

const byId = new Map(operations.map((o) => [o.id, o]));

export function findOperation(id: string): OperationSpec | undefined {
  return byId.get(id);
}

/** Returns the catalog with `overrides` (operation id → path template) applied. Unknown ids throw. */
export function resolveOperations(
  overrides: Readonly<Record<string, string>> = {},
): Map<string, OperationSpec> {
  const resolved = new Map(byId);
  for (const [id, path] of Object.entries(overrides)) {
    const op = resolved.get(id);
    if (!op) throw new Error(`path override names unknown operation '${id}'`);
    resolved.set(id, { ...op, path });
  }
  return resolved;
}

/** Fills `{name}` placeholders from `params`, URL-encoding each value. Missing params throw. */
export function buildPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path parameter '${name}' is missing for ${template}`);
    return encodeURIComponent(value);
  });
}
