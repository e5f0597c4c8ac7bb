/**
 * The data table of the operations outside the per-collection ones (address book, transfers,
 * liquidation, sending, …), with the service variants that have each, the client's typed method
 * that calls each (`call`) and what each answers (`answer`). See `endpoints.ts` for how `assumed` is
 * decided and how paths are overridden, and `operation-methods.ts` for the methods' types, which
 * follow from these rows.
 */
import type * as z from 'zod';
import {
  availableQuantitiesSchema,
  eInvoiceSendingSchema,
  liquidationSchema,
  orderStatusSchema,
  paymentStatusSchema,
  registrationNumberSchema,
  sellingPricesSchema,
  sendingStatusSchema,
} from './answers.js';
import { type ServiceVariant, serviceVariants } from './collections.js';
import type { OperationSpec } from './operation-spec.js';
import { listEnvelopeSchema, recordSchema } from './schemas.js';

/** An operation outside the per-collection ones, with the variants that have it. */
export type ExplicitOperation = OperationSpec & { readonly variants: readonly ServiceVariant[] };

const both = serviceVariants;
const skOnly = ['sk'] as const;
const czOnly = ['cz'] as const;
const invoiceKinds = ['IssuedInvoices', 'IssuedAdvanceInvoices'] as const;
const invoiceWord = (c: (typeof invoiceKinds)[number]) =>
  c === 'IssuedInvoices' ? 'issued invoice' : 'issued advance invoice';

const json = <S extends z.ZodType>(schema: S) => ({ json: schema }) as const;
const created = <S extends z.ZodType>(schema: S) => ({ created: schema }) as const;
const none = { none: true } as const;

/** One row, its literal types kept: the typed methods are derived from them. */
const row = <const O extends ExplicitOperation>(o: O): O => o;

export const explicitOperations = [
  // Address book
  row({
    id: 'BusinessPartners.create',
    method: 'POST',
    path: '/v1/BusinessPartners',
    kind: 'create',
    call: 'createBusinessPartner',
    takesBody: true,
    answer: created(recordSchema),
    assumed: false,
    variants: both,
    summary: 'Create a business partner (AddressResolutionMode looks data up by registration number).',
  }),
  row({
    id: 'BusinessPartners.update',
    method: 'PUT',
    path: '/v1/BusinessPartners/{id}',
    kind: 'command',
    call: 'updateBusinessPartner',
    takesBody: true,
    answer: none,
    assumed: false,
    variants: skOnly,
    summary: 'Update a business partner.',
  }),
  row({
    id: 'PaymentMethods.create',
    method: 'POST',
    path: '/v1/PaymentMethods',
    kind: 'create',
    call: 'createPaymentMethod',
    takesBody: true,
    answer: created(recordSchema),
    assumed: false,
    variants: czOnly,
    summary: 'Create a payment method.',
  }),
  // Transfers
  row({
    id: 'IssueSlips.transferToIssuedInvoice',
    method: 'POST',
    path: '/v1/IssueSlips/{id}/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    call: 'transferToIssuedInvoice',
    answer: created(recordSchema),
    assumed: false,
    variants: skOnly,
    summary: 'Transfer one issue slip fully to an issued invoice.',
  }),
  row({
    id: 'IssueSlips.transferToIssuedInvoiceBulk',
    method: 'POST',
    path: '/v1/IssueSlips/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    call: 'transferIssueSlipsToIssuedInvoice',
    takesBody: true,
    answer: created(recordSchema),
    assumed: false,
    variants: skOnly,
    summary: 'Transfer several issue slips fully to one issued invoice.',
  }),
  row({
    id: 'IssuedOffers.transferToReceivedOrder',
    method: 'POST',
    path: '/v1/IssuedOffers/{id}/Transfer/ToReceivedOrder/Fully',
    kind: 'transfer',
    call: 'transferToReceivedOrder',
    answer: created(recordSchema),
    assumed: false,
    variants: skOnly,
    summary: 'Transfer an issued offer fully to a received order.',
  }),
  row({
    id: 'ReceivedOrders.transferToIssueSlip',
    method: 'POST',
    path: '/v1/ReceivedOrders/{id}/Transfer/ToIssueSlip/Fully',
    kind: 'transfer',
    call: 'transferToIssueSlip',
    answer: created(recordSchema),
    assumed: false,
    variants: skOnly,
    summary: 'Transfer a received order fully to an issue slip.',
  }),
  row({
    id: 'ReceivedOrders.transferToIssuedInvoice',
    method: 'POST',
    path: '/v1/ReceivedOrders/{id}/Transfer/ToIssuedInvoice/Fully',
    kind: 'transfer',
    call: 'transferToIssuedInvoice',
    answer: created(recordSchema),
    assumed: false,
    variants: czOnly,
    summary: 'Transfer a received order fully to an issued invoice.',
  }),
  row({
    id: 'IssuedOrders.transferToReceivedInvoice',
    method: 'POST',
    path: '/v1/IssuedOrders/{id}/Transfer/ToReceivedInvoice/Fully',
    kind: 'transfer',
    call: 'transferToReceivedInvoice',
    answer: created(recordSchema),
    assumed: false,
    variants: both,
    summary: 'Transfer an issued order fully to a received invoice.',
  }),
  row({
    id: 'IssuedInvoices.advanceInvoiceDeduction',
    method: 'POST',
    path: '/v1/IssuedInvoices/AdvanceInvoiceDeduction',
    kind: 'command',
    call: 'deductAdvanceInvoice',
    takesBody: true,
    answer: none,
    assumed: false,
    variants: skOnly,
    summary: 'Deduct an advance invoice into an issued invoice.',
  }),
  // Order status
  ...(['IssuedOrders', 'ReceivedOrders'] as const).map((c) =>
    row({
      id: `${c}.status`,
      method: 'GET',
      path: `/v1/${c}/{id}/status`,
      kind: 'read',
      call: 'orderStatus',
      answer: json(orderStatusSchema),
      assumed: false,
      variants: both,
      summary: `Order status of one ${c === 'IssuedOrders' ? 'issued' : 'received'} order (a bare JSON string).`,
    }),
  ),
  // Payment state and liquidation
  ...invoiceKinds.flatMap((c) => [
    row({
      id: `${c}.unpaid`,
      method: 'GET',
      path: `/v1/${c}/Unpaid`,
      kind: 'read',
      call: 'unpaid',
      answer: json(listEnvelopeSchema(paymentStatusSchema)),
      paged: true,
      acceptsAfter: true,
      assumed: false,
      variants: both,
      summary: `Payment status (rest to pay, liquidations) of every unpaid ${invoiceWord(c)} (paged).`,
    }),
    row({
      id: `${c}.restToPay`,
      method: 'GET',
      path: `/v1/${c}/{id}/RestToPay`,
      kind: 'read',
      call: 'restToPay',
      answer: json(paymentStatusSchema),
      assumed: false,
      variants: both,
      summary: `Payment status (rest to pay, liquidations) of one ${invoiceWord(c)}.`,
    }),
    row({
      id: `${c}.liquidation`,
      method: 'GET',
      path: `/v1/${c}/Liquidation/{id}`,
      kind: 'read',
      call: 'liquidation',
      answer: json(liquidationSchema),
      assumed: false,
      variants: both,
      summary: `One liquidation record of an ${invoiceWord(c)}, by the liquidation's id.`,
    }),
    row({
      id: `${c}.liquidateStandaloneFully`,
      method: 'POST',
      path: `/v1/${c}/{DocumentId}/Liquidate/Standalone/Fully`,
      kind: 'create',
      call: 'liquidateFully',
      takesBody: true,
      answer: created(liquidationSchema),
      assumed: false,
      variants: both,
      summary: `Liquidate an ${invoiceWord(c)} fully without a payment document (body Date, Note; 201 with the liquidation).`,
    }),
  ]),
  row({
    id: 'IssuedInvoices.liquidateStandalonePartially',
    method: 'POST',
    path: '/v1/IssuedInvoices/{DocumentId}/Liquidate/Standalone/Partially',
    kind: 'create',
    call: 'liquidatePartially',
    takesBody: true,
    answer: created(liquidationSchema),
    assumed: false,
    variants: both,
    summary:
      'Liquidate part of an issued invoice without a payment document (body Date, Amount, Note; 201 with the liquidation).',
  }),
  // Price list
  row({
    id: 'PriceListItems.registrationNumbers',
    method: 'GET',
    path: '/v1/PriceListItems/{PriceListItemId}/RegistrationNumbers',
    kind: 'read',
    call: 'registrationNumbers',
    answer: json(listEnvelopeSchema(registrationNumberSchema)),
    paged: true,
    acceptsAfter: true,
    assumed: false,
    variants: both,
    summary: 'Registration (serial) numbers of one price-list item (paged).',
  }),
  row({
    id: 'PriceListItems.availableQuantities',
    method: 'POST',
    path: '/v1/PriceListItems/AvailableQuantities',
    kind: 'read',
    call: 'availableQuantities',
    takesBody: true,
    answer: json(availableQuantitiesSchema),
    assumed: false,
    variants: both,
    summary: 'Available quantities of the price-list items given by id (body Ids; a read, safe to repeat).',
  }),
  row({
    id: 'PriceListItems.sellingPrices',
    method: 'POST',
    path: '/v1/PriceListItems/SellingPrices',
    kind: 'read',
    call: 'sellingPrices',
    takesBody: true,
    answer: json(sellingPricesSchema),
    assumed: false,
    variants: both,
    summary: 'Selling prices of the price-list items given by id (body Ids; a read, safe to repeat).',
  }),
  // Bank documents
  ...(
    [
      ['createReceipt', 'Receipts', 'createBankReceipt', 'Import a bank receipt document.'],
      ['createPayment', 'Payments', 'createBankPayment', 'Import a bank payment document.'],
      [
        'createReceiptWithLiquidation',
        'Receipts/WithLiquidation',
        'createBankReceiptWithLiquidation',
        'Import a bank receipt together with the liquidation of the documents it pays.',
      ],
      [
        'createPaymentWithLiquidation',
        'Payments/WithLiquidation',
        'createBankPaymentWithLiquidation',
        'Import a bank payment together with the liquidation of the documents it pays.',
      ],
    ] as const
  ).map(([name, path, call, summary]) =>
    row({
      id: `BankDocuments.${name}`,
      method: 'POST',
      path: `/v1/BankDocuments/${path}`,
      kind: 'create',
      call,
      takesBody: true,
      answer: created(recordSchema),
      assumed: true,
      variants: skOnly,
      summary,
    }),
  ),
  // Sending
  row({
    id: 'Documents.sendEmail',
    method: 'POST',
    path: '/v1/{collection}/{id}/Send/Email',
    kind: 'command',
    call: 'sendEmail',
    takesBody: true,
    answer: none,
    assumed: true,
    variants: skOnly,
    summary: 'Send a document by e-mail (body To, Cc, Subject, Body).',
  }),
  row({
    id: 'Documents.sendEInvoice',
    method: 'POST',
    path: '/v1/{collection}/{id}/Send/EInvoice',
    kind: 'command',
    call: 'sendEInvoice',
    answer: json(eInvoiceSendingSchema),
    assumed: true,
    variants: skOnly,
    summary: 'Send a document through the e-invoicing network; answers with a SendingId.',
  }),
  row({
    id: 'EInvoicing.status',
    method: 'GET',
    path: '/v1/EInvoicing/Sendings/{sendingId}',
    kind: 'read',
    call: 'sendingStatus',
    answer: json(sendingStatusSchema),
    assumed: true,
    variants: skOnly,
    summary: 'Status of one e-invoicing network sending (transport state and invoice-response code).',
  }),
] satisfies readonly ExplicitOperation[];
