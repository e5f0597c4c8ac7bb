/**
 * Orders as a Shoptet shop makes them, written from Shoptet's OpenAPI (`components/schemas/order`,
 * `orderItem`, `itemPrice`, `price`, `billingAddress`) and the shop's documented behaviour: prices
 * are set with VAT to the cent; an item's `itemPrice` is its unit price × `amount` × `priceRatio`
 * (a 10 % discount is `priceRatio = 0.9000`), rounded to the cent; its VAT is the price × rate ÷
 * (100 + rate), rounded to the cent (the coefficient method of Czech and Slovak VAT law), and
 * the price without VAT is the rest. Items by `itemType`: products, shipping, billing (the payment
 * method) and discount coupons (negative, split per rate in `itemPriceVatBreakdown` by the share of
 * each rate's goods). The order's `price` sums its items. Czech shops sell in CZK at 21/12/0 %,
 * Slovak shops in EUR at 23/19/5 %.
 *
 * Independent of the intake's mapper: nothing here is shared with functions/.
 */

/** A seeded generator (mulberry32): the same seed, the same orders. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type ShopCountry = 'cz' | 'sk';

export const SHOP_RATES: Record<ShopCountry, readonly number[]> = { cz: [21, 12, 0], sk: [23, 19, 5] };
const CURRENCY: Record<ShopCountry, string> = { cz: 'CZK', sk: 'EUR' };

/** Half away from zero, in whole cents. */
const cents = (value: number) => Math.sign(value) * Math.round(Math.abs(value) * 100 + 1e-7);
const money = (c: number) => (c / 100).toFixed(2);

export interface TwinItemPrice {
  withVat: string;
  withoutVat: string;
  vat: string;
  vatRate: string;
}

/** An item price from its amount with VAT (cents) at `rate` %, as the shop computes it. */
function priceOf(withVatCents: number, rate: number): TwinItemPrice {
  const vat = cents((withVatCents / 100) * (rate / (100 + rate)));
  return {
    withVat: money(withVatCents),
    withoutVat: money(withVatCents - vat),
    vat: money(vat),
    vatRate: rate.toFixed(2),
  };
}

export interface OrderShape {
  country: ShopCountry;
  lines: number;
  /** A discount coupon of this percent of the goods (0 = none). */
  couponPercent: number;
  shipping: boolean;
  /** Cash on delivery: a billing item with a price. */
  codFee: boolean;
  /** Items with a `priceRatio` discount. */
  lineDiscounts: boolean;
  /** The customer's VAT id as Shoptet left it. */
  vatIdStatus: 'verified' | 'unverified' | 'waiting' | null;
}

const PRODUCTS = [
  'Hrnek keramický',
  'Káva zrnková 1 kg',
  'Kniha o účetnictví',
  'Kabel HDMI 2 m',
  'Papír A4, 500 listů',
  'Dětská výživa',
  'Čaj sypaný 100 g',
  'Sluchátka',
];

/** Random shape of an order, 1 to `maxLines` lines. */
export function randomShape(random: () => number, maxLines = 300): OrderShape {
  const big = random() < 0.1;
  return {
    country: random() < 0.5 ? 'cz' : 'sk',
    lines: big ? 1 + Math.floor(random() * maxLines) : 1 + Math.floor(random() * Math.min(8, maxLines)),
    couponPercent: random() < 0.3 ? ([5, 10, 15, 20][Math.floor(random() * 4)] ?? 10) : 0,
    shipping: random() < 0.85,
    codFee: random() < 0.3,
    lineDiscounts: random() < 0.4,
    vatIdStatus: (['verified', 'unverified', 'waiting', null] as const)[Math.floor(random() * 4)] ?? null,
  };
}

function item(
  itemType: string,
  name: string,
  amount: number,
  unitWithVat: number,
  ratio: number,
  total: TwinItemPrice,
  itemId: number,
  extra: Record<string, unknown> = {},
) {
  return {
    productGuid: null,
    code: null,
    ean: null,
    itemType,
    productType: null,
    name,
    variantName: null,
    brand: null,
    remark: null,
    weight: '0.000',
    additionalField: null,
    amount: amount.toFixed(3),
    amountUnit: 'ks',
    priceRatio: ratio.toFixed(4),
    status: { id: -1, name: null },
    itemPrice: total,
    unitPrice: priceOf(unitWithVat, Number(total.vatRate)),
    displayPrices: [],
    purchasePrice: null,
    recyclingFee: null,
    mainImage: null,
    stockLocation: null,
    supplierName: null,
    itemId,
    warrantyDescription: null,
    amountCompleted: '0.000',
    ...extra,
  };
}

/** The product lines of an order, and the goods (cents with VAT) sold at each rate. */
function productItems(shape: OrderShape, rates: readonly number[], random: () => number) {
  const items: Record<string, unknown>[] = [];
  const goodsByRate = new Map<number, number>();
  for (let i = 0; i < shape.lines; i += 1) {
    const rate = rates[Math.floor(random() * rates.length)] ?? 0;
    const unit =
      shape.country === 'cz' ? 1000 + Math.floor(random() * 250_000) : 10 + Math.floor(random() * 20_000);
    const amount =
      random() < 0.15 ? Math.round((0.25 + random() * 4) * 1000) / 1000 : 1 + Math.floor(random() * 5);
    const ratio =
      shape.lineDiscounts && random() < 0.5 ? ([0.95, 0.9, 0.85, 0.7833][Math.floor(random() * 4)] ?? 1) : 1;
    const total = cents((unit / 100) * amount * ratio);
    goodsByRate.set(rate, (goodsByRate.get(rate) ?? 0) + total);
    const name = PRODUCTS[Math.floor(random() * PRODUCTS.length)] ?? 'Zboží';
    items.push(
      item('product', name, amount, unit, ratio, priceOf(total, rate), i + 1, {
        code: `${100 + (i % 900)}/${['ZEL', 'MOD', 'CER'][i % 3]}`,
        productGuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      }),
    );
  }
  return { items, goodsByRate };
}

/**
 * The discount coupon of an order (none when it has no coupon or the coupon comes to 0), split
 * over the rates by each rate's share of the goods, each part rounded to the cent.
 */
function couponItems(
  shape: OrderShape,
  rates: readonly number[],
  goodsByRate: Map<number, number>,
  itemId: number,
) {
  if (shape.couponPercent <= 0) return [];
  const parts = [...goodsByRate]
    .filter(([, c]) => c > 0)
    .map(([rate, c]) => priceOf(-cents((c / 100) * (shape.couponPercent / 100)), rate));
  const sum = parts.reduce((s, p) => s + cents(Number(p.withVat)), 0);
  const vat = parts.reduce((s, p) => s + cents(Number(p.vat)), 0);
  const main = parts[0] ?? priceOf(0, rates[0] ?? 0);
  const total: TwinItemPrice = {
    withVat: money(sum),
    withoutVat: money(sum - vat),
    vat: money(vat),
    vatRate: main.vatRate,
  };
  if (sum === 0) return [];
  return [
    item('discount-coupon', `Slevový kupón ${shape.couponPercent} %`, 1, sum, 1, total, itemId, {
      code: `SLEVA${shape.couponPercent}`,
      itemPriceVatBreakdown: parts,
    }),
  ];
}

/** The shipping and the cash-on-delivery fee of an order, at the top rate, numbered from `itemId`. */
function feeItems(shape: OrderShape, top: number, itemId: number) {
  const items: Record<string, unknown>[] = [];
  if (shape.shipping) {
    const fee = shape.country === 'cz' ? 9900 : 390;
    const carrier = shape.country === 'cz' ? 'PPL' : 'Packeta';
    items.push(item('shipping', carrier, 1, fee, 1, priceOf(fee, top), itemId + items.length));
  }
  if (shape.codFee) {
    const fee = shape.country === 'cz' ? 3900 : 150;
    items.push(item('billing', 'Dobírka', 1, fee, 1, priceOf(fee, top), itemId + items.length));
  }
  return items;
}

/** The order's `price`: the sum of its items. */
function orderPrice(items: readonly Record<string, unknown>[], country: ShopCountry) {
  const sum = (k: 'withVat' | 'withoutVat' | 'vat') =>
    items.reduce((s, it) => s + cents(Number((it.itemPrice as TwinItemPrice)[k])), 0);
  return {
    vat: money(sum('vat')),
    toPay: money(sum('withVat')),
    currencyCode: CURRENCY[country],
    withoutVat: money(sum('withoutVat')),
    withVat: money(sum('withVat')),
    exchangeRate: '1.00000000',
    invoicingExchangeRate: '1.00000000',
  };
}

/** The customer's billing address: a person, or a company with its ids. */
function billingAddress(shape: OrderShape, company: boolean) {
  const cz = shape.country === 'cz';
  return {
    company: company ? 'Účetní s.r.o.' : null,
    fullName: cz ? 'Jana Nováková' : 'Jana Kováčová',
    street: cz ? 'Dlouhá' : 'Obchodná',
    houseNumber: '12',
    city: cz ? 'Praha' : 'Bratislava',
    district: null,
    additional: null,
    zip: cz ? '110 00' : '811 06',
    countryCode: cz ? 'CZ' : 'SK',
    regionName: null,
    regionShortcut: null,
    companyId: company ? '27082440' : null,
    vatId: company ? (cz ? 'CZ27082440' : 'SK2020317068') : null,
    vatIdValidationStatus: company ? shape.vatIdStatus : null,
    taxId: company ? (cz ? 'CZ27082440' : '2020317068') : null,
  };
}

/** A Shoptet order (`data.order` of `GET /api/orders/{code}`) of the given shape. */
export function shoptetOrder(code: string, shape: OrderShape, random: () => number, at: Date) {
  const rates = SHOP_RATES[shape.country];
  const { items, goodsByRate } = productItems(shape, rates, random);
  items.push(...couponItems(shape, rates, goodsByRate, items.length + 1));
  items.push(...feeItems(shape, rates[0] ?? 0, items.length + 1));
  const time = shoptetTime(at);
  const company = random() < 0.5;
  return {
    code,
    guid: `c5012051-d7ca-11e0-9a5c-${code.padStart(12, '0').slice(-12)}`,
    externalCode: null,
    creationTime: time,
    changeTime: time,
    email: 'zakaznik@example.cz',
    phone: '+420604600444',
    birthDate: null,
    clientIPAddress: '127.0.0.1',
    customerGuid: null,
    cashDeskOrder: false,
    stockId: 1,
    addressesEqual: true,
    vatPayer: true,
    vatMode: 'Normal',
    billingMethod: null,
    paymentMethod: null,
    shipping: null,
    adminUrl: `https://shop.example/admin/objednavky-detail?id=${code}`,
    status: { id: -1, name: 'Nevyřízená' },
    source: { id: -1, name: 'E-shop' },
    price: orderPrice(items, shape.country),
    paid: false,
    billingAddress: billingAddress(shape, company),
    deliveryAddress: null,
    items,
    notes: {
      customerRemark: null,
      eshopRemark: null,
      trackingNumber: null,
      trackingUrl: null,
      additionalFields: [],
    },
  };
}

export type TwinOrder = ReturnType<typeof shoptetOrder>;

/** Shoptet's date-time: `2018-05-29T09:02:27+0000` (UTC here). */
export function shoptetTime(at: Date): string {
  return `${at.toISOString().slice(0, 19)}+0000`;
}
