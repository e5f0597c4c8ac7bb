/**
 * A shop order → the service's create-received-order request. Pure: the references and the
 * options come in. Every problem is collected (`MappingError.reasons`), so one rejection names
 * them all. An order whose mapped totals differ from the shop's own throws `TotalsMismatchError`.
 */

import { requestSchemaFor } from '#functions/accounting/request-bodies.js';
import type {
  CreateReceivedOrderDto,
  CreateReceivedOrderItemDto,
} from '#functions/accounting/request-schemas.js';
import { eshopOrderMarker } from '../events/intake-events.js';
import { PARTNER_FROM_CHECKOUT_MARK } from '../partner-from-checkout.js';
import type { MappingOptions } from './intake-config.js';
import { assertTotalsMatch, type PricedItem, priceLine, toCents, totalsOfItems } from './order-totals.js';
import { type IntakeReferences, normaliseRegistrationNumber, type VatRateType } from './references.js';
import { type Contact, type IntakeSource, intakeRecordId, type ShopOrder } from './shop-order.js';
import {
  pricedRoundingItem,
  type RoundingItem,
  reconcileShopVat,
  type VatDifference,
  vatRoundingItems,
} from './vat-rounding.js';

export class MappingError extends Error {
  override readonly name = 'MappingError';
  constructor(
    readonly reasons: string[],
    options?: { cause?: unknown },
  ) {
    super(`the order cannot be mapped: ${reasons.join('; ')}`, options);
  }
}

/**
 * The create-received-order request: the public OpenAPI's `CreateReceivedOrderDto`, plus the Slovak
 * contract's `Doklad` (received orders accept an imported field of that name; the Czech DTO lacks it).
 */
export type CreateReceivedOrderRequest = CreateReceivedOrderDto & { Doklad?: string | null };
type ReceivedOrderItemRequest = CreateReceivedOrderItemDto;

/** The generated DTO schema with the Slovak addition: a mapping bug fails here, naming the field. */
const requestSchema = (() => {
  const schema = requestSchemaFor('sk', 'ReceivedOrders.create');
  if (!schema) throw new Error('the request schemas lack ReceivedOrders.create');
  return schema;
})();

/** The marker in `InternalNote` by which the import finds an order it created already. */
export function orderMarker(source: IntakeSource, shopOrderId: string): string {
  return eshopOrderMarker(intakeRecordId(source, shopOrderId));
}

/** The VAT rate type whose rate equals `percent` on `at` (rates valid then), or undefined. */
export function vatRateTypeFor(refs: IntakeReferences, percent: number, at: number): VatRateType | undefined {
  const valid = refs.vatRates.filter(
    (r) => (r.validFrom === undefined || r.validFrom <= at) && (r.validTo === undefined || at <= r.validTo),
  );
  const hit = valid.find((r) => Math.abs(r.percent - percent) < 0.005);
  if (hit) return hit.type;
  return percent === 0 ? 'ZeroVatRate' : undefined;
}

function findPartner(customer: Contact, refs: IntakeReferences, options: MappingOptions): string | undefined {
  for (const matcher of options.partnerMatch) {
    if (matcher === 'registration-number' && customer.registrationNumber) {
      const id = refs.partnersByRegistrationNumber.get(
        normaliseRegistrationNumber(customer.registrationNumber),
      );
      if (id) return id;
    }
    if (matcher === 'email' && customer.email) {
      const id = refs.partnersByEmail.get(customer.email.toLowerCase());
      if (id) return id;
    }
  }
  return undefined;
}

/**
 * The document address: the partner's address-book link when a matcher found one (every matcher
 * reads what the customer typed, so `linked` tells the order to carry the mark), else the
 * customer's own address.
 */
function documentAddress(order: ShopOrder, refs: IntakeReferences, options: MappingOptions) {
  const c = order.customer;
  const s = order.shippingAddress;
  const delivery = s
    ? {
        DeliveryAddress: {
          DeliveryAddressWithoutAddressBookLink: {
            CompanyName: s.companyName ?? null,
            Name: s.name ?? null,
            Street: s.street ?? null,
            PostCode: s.postCode ?? null,
            City: s.city ?? null,
            Country: s.country ?? null,
            PhoneNumber: s.phone ?? null,
          },
        },
      }
    : {};
  const partnerId = findPartner(c, refs, options);
  if (partnerId) {
    return {
      linked: true,
      address: { DocumentAddressWithAddressBookLink: { Id: partnerId }, ...delivery },
    } as const;
  }
  const address = {
    DocumentAddressWithoutAddressBookLink: {
      IdentificationNumber: c.registrationNumber ?? null,
      TaxIdentificationNumber: c.vatNumber ?? c.taxNumber ?? null,
      CompanyName: c.companyName ?? null,
      Name: c.name ?? null,
      Street: c.street ?? null,
      PostCode: c.postCode ?? null,
      City: c.city ?? null,
      Country: c.country ?? null,
      Email: c.email ?? null,
      PhoneNumber: c.phone ?? null,
    },
    ...delivery,
  };
  return { linked: false, address } as const;
}

/**
 * Lines, shipping and payment fees → items, and the same items as the service prices them (for the
 * reconciliation); `rateType` collects the rates it cannot map. A line with a `lineTotal` gets the
 * unit price and discount that make the service's price of the line equal it.
 */
function itemsOf(
  order: ShopOrder,
  refs: IntakeReferences,
  options: MappingOptions,
  rateType: (percent: number, where: string) => VatRateType | undefined,
): { items: ReceivedOrderItemRequest[]; priced: PricedItem[] } {
  const priceType = order.pricesIncludeVat ? 'WithVat' : 'WithoutVat';
  const items: ReceivedOrderItemRequest[] = [];
  const priced: PricedItem[] = [];
  order.lines.forEach((line, i) => {
    const type = rateType(line.vatRatePercent, `lines[${i}]`);
    const priceListItemId =
      options.matchPriceList && line.sku ? refs.priceListItems.get(line.sku.toUpperCase()) : undefined;
    const price =
      line.lineTotal === undefined
        ? { unitPrice: line.unitPrice, discountPercent: line.discountPercent ?? 0 }
        : priceLine(line.quantity, line.unitPrice, toCents(line.lineTotal));
    const common = {
      Quantity: line.quantity,
      UnitPrice: price.unitPrice,
      UnitPriceVatType: priceType,
      VatRateType: type ?? null,
      DiscountPercentage: price.discountPercent,
    } as const;
    priced.push({
      quantity: line.quantity,
      unitPrice: price.unitPrice,
      discountPercent: price.discountPercent,
      pricesIncludeVat: order.pricesIncludeVat,
      ratePercent: line.vatRatePercent,
    });
    if (priceListItemId) items.push({ PriceListItem: { PriceListItemId: priceListItemId, ...common } });
    else
      items.push({
        TextItem: {
          Code: line.sku ?? null,
          Text: line.name,
          ...common,
          ...(line.unit ? { Unit: line.unit } : {}),
        },
      });
  });
  const fees = [
    ...order.shipping.map((f, i) => ({ fee: f, code: options.shippingCode, where: `shipping[${i}]` })),
    ...order.paymentFees.map((f, i) => ({
      fee: f,
      code: options.paymentFeeCode,
      where: `paymentFees[${i}]`,
    })),
  ];
  for (const { fee, code, where } of fees) {
    if (fee.price === 0) continue;
    const type = rateType(fee.vatRatePercent, where);
    priced.push({
      quantity: 1,
      unitPrice: fee.price,
      discountPercent: 0,
      pricesIncludeVat: order.pricesIncludeVat,
      ratePercent: fee.vatRatePercent,
    });
    items.push({
      TextItem: {
        Code: code,
        Text: fee.name,
        Quantity: 1,
        UnitPrice: fee.price,
        UnitPriceVatType: priceType,
        VatRateType: type ?? null,
        DiscountPercentage: 0,
      },
    });
  }
  return { items, priced };
}

/** The code of the items that carry the shop's VAT rounding. */
export const VAT_ROUNDING_CODE = 'ROUNDING';

function roundingRequestItem(
  item: RoundingItem,
  priceType: 'WithVat' | 'WithoutVat',
  type: VatRateType | undefined,
): ReceivedOrderItemRequest {
  return {
    TextItem: {
      Code: VAT_ROUNDING_CODE,
      Text: item.kind === 'vat' ? `VAT rounding ${item.ratePercent} %` : 'Rounding',
      Quantity: 1,
      UnitPrice: item.unitPrice,
      UnitPriceVatType: priceType,
      VatRateType: type ?? null,
      DiscountPercentage: 0,
    },
  };
}

/** The request and the rates whose VAT the shop rounded otherwise (imported with the shop's). */
export interface MappedOrder {
  request: CreateReceivedOrderRequest;
  vatRounding: VatDifference[];
}

/** `mapOrder`'s request alone. */
export function mapShopOrder(
  source: IntakeSource,
  order: ShopOrder,
  refs: IntakeReferences,
  options: MappingOptions,
  receivedAt: Date,
): CreateReceivedOrderRequest {
  return mapOrder(source, order, refs, options, receivedAt).request;
}

export function mapOrder(
  source: IntakeSource,
  order: ShopOrder,
  refs: IntakeReferences,
  options: MappingOptions,
  receivedAt: Date,
): MappedOrder {
  const reasons: string[] = [];
  const at = order.createdAt ? Date.parse(order.createdAt) : receivedAt.getTime();
  const rateType = (percent: number, where: string): VatRateType | undefined => {
    const type = vatRateTypeFor(refs, percent, at);
    if (!type) reasons.push(`${where}: VAT rate ${percent} % is not one of the connection's VAT rates`);
    return type;
  };
  const { items, priced } = itemsOf(order, refs, options, rateType);
  const currency = refs.currencies.get(order.currency);
  if (!currency) reasons.push(`currency: ${order.currency} is not one of the connection's currencies`);
  if (reasons.length > 0) throw new MappingError(reasons);
  let vatRounding: VatDifference[] = [];
  if (order.totals) {
    vatRounding = reconcileShopVat(order.totals, priced, order.pricesIncludeVat);
    const priceType = order.pricesIncludeVat ? 'WithVat' : 'WithoutVat';
    for (const r of vatRoundingItems(order.totals, priced, vatRounding, order.pricesIncludeVat)) {
      const type = rateType(r.ratePercent, 'rounding');
      items.push(roundingRequestItem(r, priceType, type));
      priced.push(pricedRoundingItem(r, order.pricesIncludeVat));
    }
    if (reasons.length > 0) throw new MappingError(reasons);
    // The invariant: the order as the service will price it equals the shop's own totals, to the cent.
    assertTotalsMatch(order.totals, totalsOfItems(priced));
  }

  const marker = orderMarker(source, order.id);
  const partner = documentAddress(order, refs, options);
  const text = options.orderText.replaceAll('{number}', order.number);
  const request: CreateReceivedOrderRequest = {
    IssueDate: new Date(at).toISOString(),
    Text: text, // the template carries the number, so `Text` always finds the order too
    Note:
      [options.orderNumberField === 'Note' ? `Order ${order.number}` : undefined, order.note]
        .filter(Boolean)
        .join('\n') || null,
    // The import finds its order by the first mark; the second holds its invoices for a person.
    InternalNote: partner.linked ? `${marker} ${PARTNER_FROM_CHECKOUT_MARK}` : marker,
    ...(currency && !currency.home && order.currency !== options.homeCurrency
      ? { CurrencyId: currency.id }
      : {}),
    ...(options.orderNumberField === 'Doklad' ? { Doklad: order.number } : {}),
    BusinessPartnerAddress: partner.address,
    Items: items,
  };
  // A mapping bug fails here, naming the field, instead of at the service.
  const checked = requestSchema.safeParse(request);
  if (!checked.success) {
    throw new MappingError(
      checked.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`),
      { cause: checked.error },
    );
  }
  return { request: checked.data as CreateReceivedOrderRequest, vatRounding };
}
