/**
 * zod schemas of the service's answers to the operations outside the collections (payment state,
 * liquidation, order status, price-list queries, e-invoicing), one per DTO. Shapes come from the
 * public OpenAPI (Czech variant) where it has the operation, from the Slovak contract otherwise.
 *
 * As with records (`schemas.ts`), a field the product relies on is required; every other field of
 * the DTO is typed but optional (the service may leave it out), and fields the DTO lacks pass
 * through (`z.looseObject`), so nothing a newer version adds is lost.
 */
import * as z from 'zod';
import { recordIdSchema } from './record-id.js';
import { OrderStatusEnum } from './request-schemas.js';
import { modificationInfoSchema } from './schemas.js';

const nonEmpty = z.string().min(1);
const number = z.number();

/** `LiquidationInfoDto`: one payment of a document, as its payment status lists it. */
export const liquidationInfoSchema = z.looseObject({
  Id: nonEmpty,
  Date: z.string().nullish(),
  DocumentCurrencyAmount: number,
});
export type LiquidationInfo = z.output<typeof liquidationInfoSchema>;

/** `DocumentPaymentStatusDto`: what is left to pay on an issued (advance) invoice, and its payments. */
export const paymentStatusSchema = z.looseObject({
  Id: nonEmpty,
  Number: z.string().nullish(),
  RestToPay: number,
  LiquidationInfos: z.array(liquidationInfoSchema).nullish(),
});
export type PaymentStatus = z.output<typeof paymentStatusSchema>;

/** `LiquidationDto`: one liquidation (settlement) of an issued (advance) invoice. */
export const liquidationSchema = z.looseObject({
  Id: nonEmpty,
  IssuedInvoiceId: z.string().nullish(),
  HomeCurrencyAmount: number.nullish(),
  DocumentCurrencyAmount: number.nullish(),
  Date: z.string().nullish(),
  Note: z.string().nullish(),
  ModificationInfo: modificationInfoSchema.nullish(),
});
export type Liquidation = z.output<typeof liquidationSchema>;

/** `OrderStatusEnum`: the status of an issued or received order (a bare JSON string). */
export const orderStatusSchema = OrderStatusEnum;
export type OrderStatus = z.output<typeof orderStatusSchema>;

/**
 * One answer of the price-list queries by id, or several: the OpenAPI describes one object, the
 * service answers one per id asked. Either comes back as a list.
 */
function oneOrMany<T extends z.ZodType>(item: T) {
  return z.union([z.array(item), item]).transform((v): z.output<T>[] => (Array.isArray(v) ? v : [v]));
}

/** `PriceListItemAvailableQuantityDto`. */
export const availableQuantitySchema = z.looseObject({
  Id: nonEmpty,
  EffectiveAvailableQuantity: number.nullish(),
  AvailableQuantity: number.nullish(),
  ReservedQuantity: number.nullish(),
  ComplaintQuantity: number.nullish(),
  ReceivedOrderQuantity: number.nullish(),
});
export type AvailableQuantity = z.output<typeof availableQuantitySchema>;
export const availableQuantitiesSchema = oneOrMany(availableQuantitySchema);

/** `PriceListItemSellingPriceDto`. */
export const itemSellingPriceSchema = z.looseObject({
  SellingPriceName: z.string().nullish(),
  Price: number.nullish(),
  SellingPriceId: z.string().nullish(),
});

/** `PriceListItemWithSellingPricesDto`. */
export const itemSellingPricesSchema = z.looseObject({
  Id: nonEmpty,
  SellingPrices: z.array(itemSellingPriceSchema).nullish(),
});
export type ItemSellingPrices = z.output<typeof itemSellingPricesSchema>;
export const sellingPricesSchema = oneOrMany(itemSellingPricesSchema);

/** `RegistrationNumberDto`: a registration (serial) number of a price-list item. */
export const registrationNumberSchema = z.looseObject({
  Id: nonEmpty,
  Name: z.string().nullish(),
  AvailableQuantity: number.nullish(),
  ComplaintQuantity: number.nullish(),
  ServicedQuantity: number.nullish(),
  PriceListItemId: z.string().nullish(),
  ModificationInfo: modificationInfoSchema.nullish(),
});
export type RegistrationNumber = z.output<typeof registrationNumberSchema>;

/** The answer to an e-invoice sending (Slovak contract; assumed shape): the sending to track. */
export const eInvoiceSendingSchema = z.looseObject({
  SendingId: recordIdSchema,
  Status: z.string().optional(),
});
export type EInvoiceSending = z.output<typeof eInvoiceSendingSchema>;

/** Peppol Message Level Status: AP delivered and confirmed, AB accepted blind, RE rejected. */
export const mlsCodes = ['AP', 'AB', 'RE'] as const;
/** MLS status reasons: SV syntax violation, BV business rule violation, BW business warning, FD failure of delivery. */
export const mlsReasonCodes = ['SV', 'BV', 'BW', 'FD'] as const;

const mlsReasonSchema = z.looseObject({
  Code: z.enum(mlsReasonCodes),
  RuleIds: z.array(z.string().min(1)).nullish(),
  Description: z.string().nullish(),
});
export type MlsReasonAnswer = z.output<typeof mlsReasonSchema>;

/** The MLS fields of a status or step, given on the Slovak leg (absent where the Invoice Response is used). */
const mlsFields = {
  MessageLevelStatus: z.enum(mlsCodes).nullish(),
  MessageLevelReasons: z.array(mlsReasonSchema).nullish(),
};

const sendingStepSchema = z.looseObject({
  Date: z.string().nullish(),
  Status: z.string().min(1),
  ResponseCode: z.string().nullish(),
  ...mlsFields,
});

/**
 * The status of an e-invoice sending (Slovak contract; assumed shape): transport state, the
 * Invoice Response code where a network gives one and, on the Slovak leg, the Message Level Status.
 */
export const sendingStatusSchema = z.looseObject({
  Status: z.string().min(1),
  ResponseCode: z.string().nullish(),
  ...mlsFields,
  IsFinal: z.boolean().optional(),
  History: z.array(sendingStepSchema).optional(),
});
export type SendingStatus = z.output<typeof sendingStatusSchema>;
