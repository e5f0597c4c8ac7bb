/**
 * Realistic shop orders in each platform's documented webhook JSON (Shopify `orders/create`,
 * WooCommerce `order.created`, the generic schema), for `intake send`, the demo and tests.
 * SKUs come from the sandbox's price list (so they become price-list items) plus one that does
 * not (a text item); shipping and, for WooCommerce, a cash-on-delivery fee.
 */
import type { IntakeSource, ShopOrder } from '../core/intake/shop-order.js';

const products = [
  { sku: 'KAN-001', name: 'Papier A4 80 g, 500 listov', price: 4.59, vat: 23 },
  { sku: 'POT-001', name: 'Káva zrnková 1 kg', price: 18.4, vat: 19 },
  { sku: 'KNI-001', name: 'Kniha: Účtovníctvo podnikateľov', price: 24.9, vat: 5 },
  { sku: 'ELE-003', name: 'Kábel HDMI 2 m', price: 7.9, vat: 23 },
  { sku: 'ESHOP-GIFT', name: 'Darčekové balenie', price: 2.5, vat: 23 },
];
const customers = [
  {
    first: 'Jana',
    last: 'Kováčová',
    email: 'jana.kovacova@example.sk',
    street: 'Obchodná 12',
    city: 'Bratislava',
    zip: '811 06',
  },
  {
    first: 'Peter',
    last: 'Horváth',
    email: 'peter.horvath@example.sk',
    street: 'Hlavná 48',
    city: 'Košice',
    zip: '040 01',
  },
  {
    first: 'Mária',
    last: 'Nováková',
    email: 'maria.novakova@example.sk',
    street: 'Mariánske nám. 3',
    city: 'Žilina',
    zip: '010 01',
    company: 'Novák Design s.r.o.',
    ico: '47852369',
  },
];

const money = (n: number) => (Math.round(n * 100 + 1e-9) / 100).toFixed(2);
const cents = (n: number) => Math.round(n * 100 + 1e-9);
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;

function linesFor(n: number) {
  const count = 1 + (n % 3);
  return Array.from({ length: count }, (_, i) => ({
    ...pick(products, n + i * 2),
    quantity: 1 + ((n + i) % 3),
  }));
}

/** Order `n` (a distinct shop order per `n`) as `source` sends it. */
export function sampleOrder(
  source: IntakeSource,
  n: number,
  now: Date = new Date(),
): Record<string, unknown> {
  if (source === 'shopify') return shopifyOrder(n, now);
  if (source === 'woocommerce') return wooOrder(n, now);
  return genericOrder(n, now);
}

/** Shopify's lines with VAT included: the tax inside each line's price, rounded per line. */
function shopifyLines(n: number) {
  return linesFor(n).map((p, i) => {
    const price = money(p.price * (1 + p.vat / 100));
    const gross = cents(Number(price) * p.quantity);
    const tax = Math.round((gross * p.vat) / (100 + p.vat));
    return {
      id: 13_000_000_000 + n * 10 + i,
      title: p.name,
      name: p.name,
      sku: p.sku,
      quantity: p.quantity,
      price,
      price_set: { shop_money: { amount: price, currency_code: 'EUR' } },
      total_discount: '0.00',
      discount_allocations: [],
      taxable: true,
      tax_lines: [{ title: 'DPH', rate: p.vat / 100, price: money(tax / 100) }],
      gross,
      tax,
    };
  });
}

function shopifyOrder(n: number, now: Date): Record<string, unknown> {
  const c = pick(customers, n);
  const lines = shopifyLines(n);
  const taxByRate = new Map<number, number>([[0.23, 92]]);
  for (const l of lines) {
    const rate = l.tax_lines[0]?.rate ?? 0;
    taxByRate.set(rate, (taxByRate.get(rate) ?? 0) + l.tax);
  }
  const total = lines.reduce((sum, l) => sum + l.gross, 0) + 490;
  const totalTax = [...taxByRate.values()].reduce((a, b) => a + b, 0);
  const address = {
    first_name: c.first,
    last_name: c.last,
    company: c.company ?? null,
    address1: c.street,
    address2: null,
    city: c.city,
    zip: c.zip,
    province: null,
    country: 'Slovakia',
    country_code: 'SK',
    phone: '+421 900 123 456',
    name: `${c.first} ${c.last}`,
  };
  return {
    id: 5_800_000_000_000 + n,
    admin_graphql_api_id: `gid://shopify/Order/${5_800_000_000_000 + n}`,
    name: `#${1000 + n}`,
    order_number: 1000 + n,
    email: c.email,
    created_at: now.toISOString(),
    currency: 'EUR',
    presentment_currency: 'EUR',
    taxes_included: true,
    financial_status: 'paid',
    fulfillment_status: null,
    note: n % 4 === 0 ? 'Prosím doručiť po 16:00.' : null,
    note_attributes: c.ico ? [{ name: 'ico', value: c.ico }] : [],
    customer: { id: 7_200_000_000 + n, email: c.email, first_name: c.first, last_name: c.last },
    billing_address: address,
    shipping_address: address,
    total_price: money(total / 100),
    total_price_set: { shop_money: { amount: money(total / 100), currency_code: 'EUR' } },
    total_tax: money(totalTax / 100),
    tax_lines: [...taxByRate.entries()].map(([rate, tax]) => ({
      title: 'DPH',
      rate,
      price: money(tax / 100),
    })),
    discount_applications: [],
    line_items: lines.map(({ gross: _g, tax: _t, ...line }) => line),
    shipping_lines: [
      {
        id: 4_100_000_000 + n,
        title: 'Kuriér SPS',
        code: 'courier',
        price: '4.90',
        tax_lines: [{ title: 'DPH', rate: 0.23, price: '0.92' }],
      },
    ],
  };
}

const wooRates = [
  { rate_id: 1, rate_code: 'SK-DPH-1', label: 'DPH 23 %', rate_percent: 23 },
  { rate_id: 2, rate_code: 'SK-DPH-2', label: 'DPH 19 %', rate_percent: 19 },
  { rate_id: 3, rate_code: 'SK-DPH-3', label: 'DPH 5 %', rate_percent: 5 },
];

function wooLines(n: number) {
  const rateId = (vat: number) => wooRates.find((r) => r.rate_percent === vat)?.rate_id ?? 1;
  return linesFor(n).map((p, i) => {
    const total = p.price * p.quantity;
    const tax = money((total * p.vat) / 100);
    return {
      id: 300 + n * 10 + i,
      name: p.name,
      product_id: 40 + i,
      variation_id: 0,
      quantity: p.quantity,
      tax_class: '',
      subtotal: money(total),
      subtotal_tax: tax,
      total: money(total),
      total_tax: tax,
      taxes: [{ id: rateId(p.vat), total: tax, subtotal: tax }],
      sku: p.sku,
      price: p.price,
    };
  });
}

function wooBilling(c: (typeof customers)[number]) {
  return {
    first_name: c.first,
    last_name: c.last,
    company: c.company ?? '',
    address_1: c.street,
    address_2: '',
    city: c.city,
    state: '',
    postcode: c.zip,
    country: 'SK',
    email: c.email,
    phone: '+421 900 123 456',
  };
}

function wooOrder(n: number, now: Date): Record<string, unknown> {
  const c = pick(customers, n);
  const billing = wooBilling(c);
  const lines = wooLines(n);
  // Fees count in a rate's tax_total, shipping in its shipping_tax_total (both at 23 % here).
  const taxOf = (id: number) =>
    lines.filter((l) => l.taxes[0]?.id === id).reduce((sum, l) => sum + cents(Number(l.total_tax)), 0) +
    (id === 1 ? 35 : 0);
  const total =
    lines.reduce((sum, l) => sum + cents(Number(l.total)) + cents(Number(l.total_tax)), 0) +
    350 +
    81 +
    150 +
    35;
  return {
    id: 7000 + n,
    parent_id: 0,
    number: String(7000 + n),
    order_key: `wc_order_${(7000 + n).toString(36)}`,
    created_via: 'checkout',
    status: 'processing',
    currency: 'EUR',
    date_created: now.toISOString().slice(0, 19),
    date_created_gmt: now.toISOString().slice(0, 19),
    prices_include_tax: false,
    customer_id: 0,
    customer_note: n % 4 === 0 ? 'Volať pred doručením.' : '',
    billing,
    shipping: { ...billing, email: undefined },
    payment_method: 'cod',
    payment_method_title: 'Dobierka',
    meta_data: c.ico ? [{ id: 900 + n, key: '_billing_ico', value: c.ico }] : [],
    total: money(total / 100),
    total_tax: money(([1, 2, 3].reduce((sum, id) => sum + taxOf(id), 0) + 81) / 100),
    line_items: lines,
    tax_lines: wooRates.map((r, i) => ({
      id: 500 + i,
      ...r,
      compound: false,
      tax_total: money(taxOf(r.rate_id) / 100),
      shipping_tax_total: r.rate_id === 1 ? '0.81' : '0.00',
    })),
    shipping_lines: [
      {
        id: 600 + n,
        method_title: 'Packeta',
        method_id: 'flat_rate',
        total: '3.50',
        total_tax: '0.81',
        taxes: [{ id: 1, total: '0.81' }],
      },
    ],
    fee_lines: [
      {
        id: 700 + n,
        name: 'Poplatok za dobierku',
        tax_class: '',
        total: '1.50',
        total_tax: '0.35',
        taxes: [{ id: 1, total: '0.35' }],
      },
    ],
  };
}

function genericOrder(n: number, now: Date): ShopOrder {
  const c = pick(customers, n);
  return {
    id: `G-${100_000 + n}`,
    number: `G${100_000 + n}`,
    createdAt: now.toISOString(),
    currency: 'EUR',
    pricesIncludeVat: false,
    customer: {
      name: `${c.first} ${c.last}`,
      email: c.email,
      street: c.street,
      city: c.city,
      postCode: c.zip,
      country: 'SK',
      ...(c.company ? { companyName: c.company } : {}),
      ...(c.ico ? { registrationNumber: c.ico } : {}),
    },
    lines: linesFor(n).map((p) => ({
      sku: p.sku,
      name: p.name,
      quantity: p.quantity,
      unitPrice: p.price,
      vatRatePercent: p.vat,
    })),
    shipping: [{ name: 'Kuriér SPS', price: 3.98, vatRatePercent: 23 }],
    paymentFees: [],
  };
}
