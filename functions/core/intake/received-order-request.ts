/**
 * The create-received-order request, as the service's public OpenAPI describes it
 * (`CreateReceivedOrderDto`, `CreateReceivedOrderItemDto` with its `TextItem` / `PriceListItem`
 * wrappers, `DocumentAddressRequestDto`), in the subset the intake fills. Strict: a field the
 * DTO does not know fails here, before the request leaves. `Doklad` is the Slovak contract's
 * addition (received orders accept an imported field of that name); the Czech DTO lacks it.
 */
import * as z from 'zod';

const guid = z.string().regex(/^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/, 'expected a GUID');
export const vatRateTypes = [
  'ZeroVatRate',
  'BasicVatRate',
  'FirstReducedVatRate',
  'SecondReducedVatRate',
] as const;
export type VatRateType = (typeof vatRateTypes)[number];
const vatRateType = z.enum(vatRateTypes);
const priceVatType = z.enum(['WithoutVat', 'WithVat']);

export const textItemSchema = z.strictObject({
  Code: z.string().nullish(),
  Text: z.string().min(1),
  Quantity: z.number(),
  UnitPrice: z.number(),
  UnitPriceVatType: priceVatType,
  Unit: z.string().nullish(),
  VatRateType: vatRateType.nullish(),
  Note: z.string().nullish(),
  DiscountPercentage: z.number().min(0).max(100),
});

export const priceListItemSchema = z.strictObject({
  PriceListItemId: guid,
  Quantity: z.number().nullish(),
  UnitPrice: z.number().nullish(),
  UnitPriceVatType: priceVatType.nullish(),
  VatRateType: vatRateType.nullish(),
  DiscountPercentage: z.number().min(0).max(100).nullish(),
  Note: z.string().nullish(),
});

const itemSchema = z.union([
  z.strictObject({ TextItem: textItemSchema }),
  z.strictObject({ PriceListItem: priceListItemSchema }),
]);

const addressWithoutLink = z.strictObject({
  IdentificationNumber: z.string().nullish(),
  TaxIdentificationNumber: z.string().nullish(),
  CompanyName: z.string().nullish(),
  Name: z.string().nullish(),
  Street: z.string().nullish(),
  PostCode: z.string().nullish(),
  City: z.string().nullish(),
  Country: z.string().nullish(),
  Email: z.string().nullish(),
  PhoneNumber: z.string().nullish(),
});

const deliveryWithoutLink = z.strictObject({
  CompanyName: z.string().nullish(),
  Name: z.string().nullish(),
  Street: z.string().nullish(),
  PostCode: z.string().nullish(),
  City: z.string().nullish(),
  Country: z.string().nullish(),
  Email: z.string().nullish(),
  PhoneNumber: z.string().nullish(),
});

export const documentAddressSchema = z.union([
  z.strictObject({
    DocumentAddressWithAddressBookLink: z.strictObject({ Id: guid }),
    DeliveryAddress: z
      .strictObject({ DeliveryAddressWithoutAddressBookLink: deliveryWithoutLink })
      .optional(),
  }),
  z.strictObject({
    DocumentAddressWithoutAddressBookLink: addressWithoutLink,
    DeliveryAddress: z
      .strictObject({ DeliveryAddressWithoutAddressBookLink: deliveryWithoutLink })
      .optional(),
  }),
]);

export const createReceivedOrderRequestSchema = z.strictObject({
  IssueDate: z.iso.datetime({ offset: true }).nullish(),
  Text: z.string().nullish(),
  Note: z.string().nullish(),
  InternalNote: z.string().nullish(),
  CurrencyId: guid.nullish(),
  Doklad: z.string().nullish(),
  BusinessPartnerAddress: documentAddressSchema,
  Items: z.array(itemSchema).min(1),
});
export type CreateReceivedOrderRequest = z.infer<typeof createReceivedOrderRequestSchema>;
export type ReceivedOrderItemRequest = z.infer<typeof itemSchema>;
