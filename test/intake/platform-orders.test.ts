/**
 * Shopify and WooCommerce payloads → the shop order, field by field: the customer and delivery
 * contacts (names, streets, country codes, checkout fields), the lines and charges with their
 * rates, the notes, the creation date and the shop's totals, with each platform's fallbacks.
 */
import { describe, expect, it } from 'vitest';
import { shopifyOrderSchema, shopifyToShopOrder } from '#functions/core/intake/shopify-order.js';
import { wooOrderSchema, wooToShopOrder } from '#functions/core/intake/woocommerce-order.js';

const fields = { registrationNumber: ['ico', '_billing_ico'], vatNumber: ['ic_dph'] };
const shopify = (payload: Record<string, unknown>) =>
  shopifyToShopOrder(shopifyOrderSchema.parse(payload), fields);
const woo = (payload: Record<string, unknown>) => wooToShopOrder(wooOrderSchema.parse(payload), fields);

describe('Shopify order → shop order', () => {
  it('reads the billing contact, the delivery address, allocations, untaxed lines and every discount', () => {
    const order = shopify({
      id: 501,
      name: '#1501',
      created_at: '2026-11-20T09:15:00+01:00',
      currency: 'EUR',
      taxes_included: false,
      email: '  jana@example.sk ',
      phone: '+421900111222',
      note: 'Please ring twice',
      note_attributes: [
        { name: 'ICO', value: ' 12345678 ' },
        { name: 'IC_DPH', value: 'SK2020123456' },
      ],
      billing_address: {
        first_name: 'Jana',
        last_name: 'Kováčová',
        company: 'Kvety s.r.o.',
        address1: 'Hlavná 1',
        address2: '2. poschodie',
        city: 'Košice',
        zip: '040 01',
        country_code: 'sk',
        phone: '+421900999888',
      },
      shipping_address: {
        name: 'Peter Kováč',
        address1: 'Mlynská 5',
        city: 'Prešov',
        zip: '080 01',
        country_code: 'SVK',
        phone: '+421911000000',
      },
      customer: { email: 'other@example.sk', first_name: 'X', last_name: 'Y' },
      line_items: [
        {
          title: 'Ruža',
          name: 'Ruža červená',
          sku: 'RUZ-1',
          quantity: 2,
          price: '10.00',
          discount_allocations: [{ amount: '9.00', amount_set: { shop_money: { amount: '1.00' } } }],
          tax_lines: [{ rate: 0.23, price: '4.37' }],
        },
        {
          title: 'Darčeková karta',
          quantity: 1,
          price: '5.00',
          taxable: false,
          tax_lines: [{ rate: 0.23, price: '1.15' }],
        },
      ],
      shipping_lines: [{ title: 'Kuriér', price: '3.00', tax_lines: [{ rate: 0.23, price: '0.69' }] }],
      discount_applications: [
        { type: 'discount_code', code: 'JAR', value: '1.0', value_type: 'fixed_amount' },
        {
          type: 'automatic',
          title: 'Víkend',
          value: '10.0',
          value_type: 'percentage',
          target_type: 'shipping_line',
        },
        { type: 'manual' },
        { code: 'VIP' },
      ],
      total_price: '32.06',
    });
    expect(order).toEqual({
      id: '501',
      number: '#1501',
      createdAt: '2026-11-20T09:15:00+01:00',
      currency: 'EUR',
      pricesIncludeVat: false,
      customer: {
        email: 'jana@example.sk',
        phone: '+421900111222',
        registrationNumber: '12345678',
        vatNumber: 'SK2020123456',
        companyName: 'Kvety s.r.o.',
        name: 'Jana Kováčová',
        street: 'Hlavná 1, 2. poschodie',
        city: 'Košice',
        postCode: '040 01',
        country: 'SK',
      },
      // A three-letter code is no ISO 3166-1 alpha-2 code: left out.
      shippingAddress: {
        name: 'Peter Kováč',
        street: 'Mlynská 5',
        city: 'Prešov',
        postCode: '080 01',
        phone: '+421911000000',
      },
      lines: [
        { sku: 'RUZ-1', name: 'Ruža červená', quantity: 2, unitPrice: 10, vatRatePercent: 23, lineTotal: 19 },
        // Not taxable: its tax lines count for neither the rate nor the VAT.
        { name: 'Darčeková karta', quantity: 1, unitPrice: 5, vatRatePercent: 0, lineTotal: 5 },
      ],
      shipping: [{ name: 'Kuriér', price: 3, vatRatePercent: 23 }],
      paymentFees: [],
      note: 'Please ring twice\nDiscounts: JAR (discount code, 1.00 EUR); Víkend (automatic, 10 %, shipping); discount (manual); VIP (discount)',
      totals: { total: 32.06, vatByRate: [{ ratePercent: 23, vat: 5.06 }] },
    });
  });

  it("falls back to the customer's e-mail and name, total_discount, and drops a date it cannot read", () => {
    const order = shopify({
      id: '502',
      name: '#1502',
      created_at: 'yesterday',
      currency: 'EUR',
      taxes_included: true,
      email: '   ',
      note: 'x'.repeat(2100),
      note_attributes: [
        { name: 'ico', value: '   ' },
        { name: 'ic_dph', value: 123 },
      ],
      billing_address: null,
      customer: { email: 'bea@example.sk', first_name: 'Bea', last_name: 'Nagy' },
      line_items: [{ title: 'Kniha', quantity: 3, price: '4.00', total_discount: '1.50' }],
      total_price: '10.50',
    });
    expect(order).toEqual({
      id: '502',
      number: '#1502',
      currency: 'EUR',
      pricesIncludeVat: true,
      customer: { email: 'bea@example.sk', name: 'Bea Nagy' },
      lines: [{ name: 'Kniha', quantity: 3, unitPrice: 4, vatRatePercent: 0, lineTotal: 10.5 }],
      shipping: [],
      paymentFees: [],
      note: 'x'.repeat(2000),
      totals: { total: 10.5, vatByRate: [] },
    });
  });

  it('takes the delivery address as the contact without a billing one, and its phone when none is given', () => {
    const order = shopify({
      id: 503,
      name: '#1503',
      currency: 'EUR',
      taxes_included: false,
      shipping_address: { first_name: 'Ida', address2: 'Nábrežie 2', phone: '+421902000000' },
      customer: { first_name: 'Not', last_name: 'Used' },
      line_items: [{ title: 'Pero', quantity: 1, price: '2.00' }],
      total_price: '2.00',
    });
    expect(order.customer).toEqual({ name: 'Ida', street: 'Nábrežie 2', phone: '+421902000000' });
    expect(order.shippingAddress).toEqual(order.customer);
    expect(order.note).toBeUndefined();
  });

  it('without a customer, an address or an e-mail: an empty contact', () => {
    const order = shopify({
      id: 504,
      name: '#1504',
      currency: 'EUR',
      taxes_included: false,
      customer: null,
      line_items: [{ title: 'Pero', quantity: 1, price: '2.00' }],
      total_price: '2.00',
    });
    expect(order.customer).toStrictEqual({});
    const unnamed = shopify({
      id: 505,
      name: '#1505',
      currency: 'EUR',
      taxes_included: false,
      customer: { first_name: null, last_name: '  ' },
      line_items: [{ title: 'Pero', quantity: 1, price: '2.00' }],
      total_price: '2.00',
    });
    expect(unnamed.customer).toStrictEqual({});
  });
});

describe('WooCommerce order → shop order', () => {
  it('reads the billing contact, the meta fields, rates through the tax lines, shipping, fees and coupons', () => {
    const order = woo({
      id: 701,
      number: '701',
      date_created_gmt: '2026-11-20T08:00:00',
      currency: 'EUR',
      prices_include_tax: false,
      total: '22.53',
      customer_note: 'Leave at the door',
      billing: {
        first_name: 'Ján',
        last_name: 'Novák',
        company: 'Novák s.r.o.',
        address_1: 'Dlhá 3',
        address_2: 'byt 4',
        city: '  Žilina ',
        postcode: '010 01',
        country: 'sk',
        email: 'jan@example.sk',
        phone: '+421944000111',
      },
      shipping: {
        first_name: '',
        last_name: '',
        address_1: '',
        city: 'Martin',
        postcode: '036 01',
        country: 'SK',
      },
      meta_data: [
        { key: '_billing_ico', value: ' 87654321 ' },
        { key: 'IC_DPH', value: 'SK1234567890' },
      ],
      line_items: [
        {
          name: 'Hrnček',
          sku: 'HRN',
          quantity: 3,
          subtotal: '15.00',
          subtotal_tax: '3.45',
          total: '13.50',
          total_tax: '3.11',
          taxes: [{ id: 1, total: '3.105' }],
        },
      ],
      tax_lines: [{ rate_id: 1, rate_percent: 23, tax_total: '3.11', shipping_tax_total: '0.92' }],
      shipping_lines: [
        { method_title: 'Kuriér', total: '4.00', total_tax: '0.92', taxes: [{ id: 1, total: '0.92' }] },
      ],
      fee_lines: [{ name: 'Dobierka', total: '1.00', total_tax: '0.00', taxes: [] }],
      coupon_lines: [
        { code: 'leto', discount: '1.50', discount_tax: '0.35' },
        { code: 'vip', discount: '0.50', discount_tax: '0.12' },
      ],
    });
    expect(order).toEqual({
      id: '701',
      number: '701',
      createdAt: '2026-11-20T08:00:00Z',
      currency: 'EUR',
      pricesIncludeVat: false,
      customer: {
        registrationNumber: '87654321',
        vatNumber: 'SK1234567890',
        companyName: 'Novák s.r.o.',
        name: 'Ján Novák',
        street: 'Dlhá 3, byt 4',
        city: 'Žilina',
        postCode: '010 01',
        country: 'SK',
        email: 'jan@example.sk',
        phone: '+421944000111',
      },
      shippingAddress: { city: 'Martin', postCode: '036 01', country: 'SK' },
      lines: [{ sku: 'HRN', name: 'Hrnček', quantity: 3, unitPrice: 5, vatRatePercent: 23, lineTotal: 13.5 }],
      shipping: [{ name: 'Kuriér', price: 4, vatRatePercent: 23 }],
      paymentFees: [{ name: 'Dobierka', price: 1, vatRatePercent: 0 }],
      note: 'Leave at the door\nCoupons: leto (−1.50 EUR); vip (−0.50 EUR)',
      totals: { total: 22.53, vatByRate: [{ ratePercent: 23, vat: 4.03 }] },
    });
  });

  it('prices with tax: rates and VAT from the charges without tax lines, a fee as a discount, no note', () => {
    const order = woo({
      id: 702,
      number: 702,
      date_created_gmt: '2026-11-21T10:00:00Z',
      currency: 'EUR',
      prices_include_tax: true,
      total: '8.77',
      billing: { first_name: 'Eva', country: 'Slovakia', email: 'eva@example.sk' },
      shipping: { first_name: 'Eva', last_name: 'Malá' },
      meta_data: [{ key: 'ico', value: ' ' }],
      line_items: [
        {
          name: 'Čaj',
          quantity: 2,
          subtotal: '8.13',
          subtotal_tax: '1.87',
          total: '8.13',
          total_tax: '1.87',
          taxes: [{ id: 9, total: '1.87' }],
        },
      ],
      fee_lines: [{ name: 'Zľava', total: '-1.00', total_tax: '-0.23', taxes: [] }],
    });
    expect(order).toEqual({
      id: '702',
      number: '702',
      createdAt: '2026-11-21T10:00:00Z',
      currency: 'EUR',
      pricesIncludeVat: true,
      customer: { name: 'Eva', email: 'eva@example.sk' },
      lines: [{ name: 'Čaj', quantity: 2, unitPrice: 5, vatRatePercent: 23, lineTotal: 10 }],
      shipping: [],
      paymentFees: [{ name: 'Zľava', price: -1.23, vatRatePercent: 23 }],
      totals: { total: 8.77, vatByRate: [{ ratePercent: 23, vat: 1.64 }] },
    });
  });

  it("tax lines without their sums: the charges' VAT; a coupon with prices with tax; an unreadable date dropped", () => {
    const order = woo({
      id: 703,
      number: '703',
      date_created_gmt: 'soon',
      currency: 'EUR',
      prices_include_tax: true,
      total: '12.30',
      billing: {},
      tax_lines: [
        { rate_id: 1, rate_percent: 23 },
        { rate_id: 2, rate_percent: 5, tax_total: '0.00' },
      ],
      line_items: [
        {
          name: 'Med',
          quantity: 1,
          subtotal: '11.00',
          subtotal_tax: '2.53',
          total: '10.00',
          total_tax: '2.30',
          taxes: [{ id: 1, total: '2.30' }],
        },
      ],
      coupon_lines: [{ code: 'med', discount: '1.00', discount_tax: '0.23' }],
    });
    expect(order.createdAt).toBeUndefined();
    expect(order.customer).toEqual({});
    expect(order.lines).toEqual([
      { name: 'Med', quantity: 1, unitPrice: 13.53, vatRatePercent: 23, lineTotal: 12.3 },
    ]);
    expect(order.note).toBe('Coupons: med (−1.23 EUR)');
    expect(order.totals).toEqual({ total: 12.3, vatByRate: [{ ratePercent: 23, vat: 2.3 }] });
  });

  it('a free shipping line has no rate; a long customer note is cut at 2,000 characters', () => {
    const order = woo({
      id: 704,
      number: '704',
      currency: 'EUR',
      total: '2.00',
      customer_note: 'y'.repeat(2100),
      billing: { first_name: 'Ema' },
      line_items: [{ name: 'Pero', quantity: 1, subtotal: '2.00', total: '2.00' }],
      shipping_lines: [{ method_title: 'Osobný odber', total: '0.00', total_tax: '0.00' }],
    });
    expect(order.shipping).toEqual([{ name: 'Osobný odber', price: 0, vatRatePercent: 0 }]);
    expect(order.note).toBe('y'.repeat(2000));
    expect(order.totals).toEqual({ total: 2, vatByRate: [] });
  });

  it('a tax line with its sum but no rate: the rate and the VAT from the charges', () => {
    const order = woo({
      id: 705,
      number: '705',
      currency: 'EUR',
      total: '12.30',
      billing: {},
      tax_lines: [{ rate_id: 1, tax_total: '2.30' }],
      line_items: [
        {
          name: 'Med',
          quantity: 1,
          subtotal: '10.00',
          total: '10.00',
          total_tax: '2.30',
          taxes: [{ id: 1, total: '2.30' }],
        },
      ],
    });
    expect(order.lines[0]?.vatRatePercent).toBe(23);
    expect(order.totals).toEqual({ total: 12.3, vatByRate: [{ ratePercent: 23, vat: 2.3 }] });
  });
});
