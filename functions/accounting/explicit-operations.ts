/**
 * The data table of the operations outside the per-collection ones (address book, transfers,
 * liquidation, sending, …), with the service variants that have each. See `endpoints.ts` for how
 * `assumed` is decided and how paths are overridden.
 */
import { type ServiceVariant, serviceVariants } from './collections.js';
import type { OperationSpec } from './operation-spec.js';

/** An operation outside the per-collection ones, with the variants that have it. */
export type ExplicitOperation = OperationSpec & { readonly variants: readonly ServiceVariant[] };

const both = serviceVariants;
const skOnly = ['sk'] as const;
const czOnly = ['cz'] as const;
const invoiceKinds = ['IssuedInvoices', 'IssuedAdvanceInvoices'] as const;
const invoiceWord = (c: (typeof invoiceKinds)[number]) =>
  c === 'IssuedInvoices' ? 'issued invoice' : 'issued advance invoice';

export const explicitOperations: readonly ExplicitOperation[] = [
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
    (c): ExplicitOperation => ({
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
  ...invoiceKinds.flatMap((c): ExplicitOperation[] => [
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
    ([name, path, summary]): ExplicitOperation => ({
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
