/**
 * Which request body each operation takes, per service variant: the OpenAPI's DTO (generated zod
 * schemas in `request-schemas.ts`), with the Slovak contract's additions in `sk`. The client checks
 * every body it sends against this before the request leaves (`checkRequestBody`), and the typed
 * methods' body types follow from the same schemas (`RequestBodyOf`).
 */
import * as z from 'zod';
import type { ServiceVariant } from './collections.js';
import {
  CreateBusinessPartnerDto,
  CreateReceivedOrderDto,
  type RequestDtoName,
  requestDtos,
} from './request-schemas.js';

/** Operation id → the DTO name of its request body in the public OpenAPI. */
export const requestDtoOf = {
  'BusinessPartners.create': 'CreateBusinessPartnerDto',
  'IssuedAdvanceInvoices.create': 'CreateIssuedAdvanceInvoiceDto',
  'IssuedInvoices.create': 'CreateIssuedInvoiceDto',
  'IssuedOffers.create': 'CreateIssuedOfferDto',
  'IssuedOrders.create': 'CreateIssuedOrderDto',
  'IssueSlips.create': 'CreateIssueSlipDto',
  'ReceivedInvoices.create': 'CreateReceivedInvoiceDto',
  'ReceivedOrders.create': 'CreateReceivedOrderDto',
  'PaymentMethods.create': 'CreatePaymentMethodDto',
  'IssuedInvoices.liquidateStandaloneFully': 'CreateFullIssuedInvoiceLiquidationDto',
  'IssuedInvoices.liquidateStandalonePartially': 'CreatePartialIssuedInvoiceLiquidationDto',
  'IssuedAdvanceInvoices.liquidateStandaloneFully': 'CreateFullIssuedAdvanceInvoiceLiquidationDto',
  'PriceListItems.availableQuantities': 'ByIdListRequest',
  'PriceListItems.sellingPrices': 'ByIdListRequest',
} as const satisfies Readonly<Record<string, RequestDtoName>>;

type CzBodies = {
  readonly [Id in keyof typeof requestDtoOf]: (typeof requestDtos)[(typeof requestDtoOf)[Id]];
};

const czBodies = Object.fromEntries(
  Object.entries(requestDtoOf).map(([id, dto]) => [id, requestDtos[dto]]),
) as CzBodies;

/** A list of addresses: one address or several. */
const addresses = z.union([z.string(), z.array(z.string())]);

/**
 * The Slovak contract's additions to the same DTOs: received orders accept an imported field
 * `Doklad`; business-partner creation accepts `AddressResolutionMode` (values not shown). Sending by
 * e-mail takes the recipients and, optionally, copies, a subject and a text (assumed shape; other
 * fields pass).
 */
const skBodies = {
  ...czBodies,
  'ReceivedOrders.create': CreateReceivedOrderDto.extend({ Doklad: z.string().nullable().optional() }),
  'BusinessPartners.create': CreateBusinessPartnerDto.extend({
    AddressResolutionMode: z.string().nullable().optional(),
  }),
  'Documents.sendEmail': z.looseObject({
    To: addresses,
    Cc: addresses.optional(),
    Subject: z.string().optional(),
    Body: z.string().optional(),
  }),
};

type Bodies = typeof skBodies;

/**
 * The request body of an operation as the typed methods take it: its DTO (the Slovak contract's
 * superset; the client checks the variant's own), or any JSON object where the shape is not shown.
 */
export type RequestBodyOf<Id extends string> = Id extends keyof Bodies
  ? z.input<Bodies[Id]>
  : Readonly<Record<string, unknown>>;

/** The zod schema of an operation's request body in the variant, when the body's shape is known. */
export function requestSchemaFor(variant: ServiceVariant, operationId: string): z.ZodType | undefined {
  const bodies: Readonly<Record<string, z.ZodType>> = variant === 'cz' ? czBodies : skBodies;
  return bodies[operationId];
}
