/**
 * Which request body each operation takes, per service variant: the OpenAPI's DTO (generated zod
 * schemas in `request-schemas.ts`), with the Slovak contract's additions in `sk`. The client checks
 * every body it sends against this before the request leaves (`checkRequestBody`).
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
export const requestDtoOf: Readonly<Record<string, RequestDtoName>> = {
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
};

const czBodies: Readonly<Record<string, z.ZodType>> = Object.fromEntries(
  Object.entries(requestDtoOf).map(([id, dto]) => [id, requestDtos[dto]]),
);

/**
 * The Slovak contract's additions to the same DTOs: received orders accept an imported field
 * `Doklad`; business-partner creation accepts `AddressResolutionMode` (values not shown).
 */
const skBodies: Readonly<Record<string, z.ZodType>> = {
  ...czBodies,
  'ReceivedOrders.create': CreateReceivedOrderDto.extend({ Doklad: z.string().nullable().optional() }),
  'BusinessPartners.create': CreateBusinessPartnerDto.extend({
    AddressResolutionMode: z.string().nullable().optional(),
  }),
};

/** The zod schema of an operation's request body in the variant, when the body's shape is known. */
export function requestSchemaFor(variant: ServiceVariant, operationId: string): z.ZodType | undefined {
  return (variant === 'cz' ? czBodies : skBodies)[operationId];
}
