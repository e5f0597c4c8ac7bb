/**
 * The create-received-order request field by field: the customer's document address and the
 * delivery address, price-list and text items with their units and discounts, shipping and fees
 * (a free one left out), the order number in the note, text or Doklad, the currency, the partner
 * matchers in turn, the VAT rate on its validity bounds, and the refusals naming what failed.
 */
import { describe, expect, it } from 'vitest';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { MappingError, mapShopOrder, vatRateTypeFor } from '#functions/core/intake/map-order.js';
import type { IntakeReferences } from '#functions/core/intake/references.js';
import type { ShopOrder } from '#functions/core/intake/shop-order.js';

const EUR = 'aaaaaaaa-2222-4333-8444-555555555555';
const KANVA = '11111111-2222-4333-8444-555555555555';
const PARTNER = 'cccccccc-2222-4333-8444-555555555555';
const refs: IntakeReferences = {
  vatRates: [
    { type: 'BasicVatRate', percent: 23, validFrom: Date.parse('2025-01-01') },
    { type: 'SecondReducedVatRate', percent: 5, validFrom: Date.parse('2025-01-01') },
  ],
  priceListItems: new Map([['KAN-001', KANVA]]),
  currencies: new Map([
    ['EUR', { id: EUR, home: true }],
    ['CZK', { id: 'not-a-guid', home: false }],
  ]),
  partnersByRegistrationNumber: new Map([['47852369', 'dddddddd-2222-4333-8444-555555555555']]),
  partnersByEmail: new Map([['jana@example.sk', PARTNER]]),
};
const at = new Date('2026-11-22T12:00:00Z');
const options = (env: Record<string, string> = {}) =>
  loadIntakeConfig({ INTAKE_ORDER_NUMBER_FIELD: 'Note', ...env }).mapping;

const order: ShopOrder = {
  id: '9001',
  number: 'W-9001',
  createdAt: '2026-11-20T10:00:00Z',
  currency: 'EUR',
  pricesIncludeVat: false,
  customer: {
    companyName: 'Kvety s.r.o.',
    name: 'Jana Kováčová',
    email: 'Jana@Example.sk',
    phone: '+421900111222',
    registrationNumber: '12345678',
    taxNumber: '2020123456',
    street: 'Hlavná 1',
    city: 'Košice',
    postCode: '04001',
    country: 'SK',
  },
  shippingAddress: {
    companyName: 'Sklad',
    name: 'Peter',
    street: 'Mlynská 5',
    city: 'Prešov',
    postCode: '08001',
    country: 'SK',
    phone: '+421911000000',
  },
  lines: [
    {
      sku: 'kan-001',
      name: 'Kanva',
      quantity: 2,
      unit: 'ks',
      unitPrice: 10,
      vatRatePercent: 23,
      discountPercent: 10,
    },
    { name: 'Bez kódu', quantity: 1, unitPrice: 4, vatRatePercent: 5 },
  ],
  shipping: [
    { name: 'Kuriér', price: 3, vatRatePercent: 23 },
    { name: 'Osobný odber', price: 0, vatRatePercent: 7 },
  ],
  paymentFees: [{ name: 'Dobierka', price: 1.5, vatRatePercent: 23 }],
  note: 'Ring twice',
};

const text = (fields: Record<string, unknown>) => ({
  TextItem: { Quantity: 1, UnitPriceVatType: 'WithoutVat', DiscountPercentage: 0, ...fields },
});

describe('mapShopOrder, field by field', () => {
  it('maps the addresses, a price-list item by its upper-cased SKU, text items, charges and the note', () => {
    expect(mapShopOrder('woocommerce', order, refs, options(), at)).toEqual({
      IssueDate: '2026-11-20T10:00:00.000Z',
      Text: 'E-shop order W-9001',
      Note: 'Order W-9001\nRing twice',
      InternalNote: '[eshop-order woocommerce:9001]',
      BusinessPartnerAddress: {
        DocumentAddressWithoutAddressBookLink: {
          IdentificationNumber: '12345678',
          TaxIdentificationNumber: '2020123456',
          CompanyName: 'Kvety s.r.o.',
          Name: 'Jana Kováčová',
          Street: 'Hlavná 1',
          PostCode: '04001',
          City: 'Košice',
          Country: 'SK',
          Email: 'Jana@Example.sk',
          PhoneNumber: '+421900111222',
        },
        DeliveryAddress: {
          DeliveryAddressWithoutAddressBookLink: {
            CompanyName: 'Sklad',
            Name: 'Peter',
            Street: 'Mlynská 5',
            PostCode: '08001',
            City: 'Prešov',
            Country: 'SK',
            PhoneNumber: '+421911000000',
          },
        },
      },
      Items: [
        {
          PriceListItem: {
            PriceListItemId: KANVA,
            Quantity: 2,
            UnitPrice: 10,
            UnitPriceVatType: 'WithoutVat',
            VatRateType: 'BasicVatRate',
            DiscountPercentage: 10,
          },
        },
        text({ Code: null, Text: 'Bez kódu', UnitPrice: 4, VatRateType: 'SecondReducedVatRate' }),
        text({ Code: 'SHIPPING', Text: 'Kuriér', UnitPrice: 3, VatRateType: 'BasicVatRate' }),
        // The free pickup is no item, so its rate (none of the connection's) is no reason either.
        text({ Code: 'PAYMENT', Text: 'Dobierka', UnitPrice: 1.5, VatRateType: 'BasicVatRate' }),
      ],
    });
  });

  it('without price-list matching: the SKU as the code and the unit; empty fields as null', () => {
    const bare: ShopOrder = { ...order, customer: {}, shippingAddress: {}, shipping: [], paymentFees: [] };
    const body = mapShopOrder('shopify', bare, refs, options({ INTAKE_MATCH_PRICE_LIST: 'false' }), at);
    expect(body.Items[0]).toEqual(
      text({
        Code: 'kan-001',
        Text: 'Kanva',
        Quantity: 2,
        Unit: 'ks',
        UnitPrice: 10,
        VatRateType: 'BasicVatRate',
        DiscountPercentage: 10,
      }),
    );
    expect(body.BusinessPartnerAddress).toEqual({
      DocumentAddressWithoutAddressBookLink: Object.fromEntries(
        [
          'IdentificationNumber',
          'TaxIdentificationNumber',
          'CompanyName',
          'Name',
          'Street',
          'PostCode',
          'City',
          'Country',
          'Email',
          'PhoneNumber',
        ].map((k) => [k, null]),
      ),
      DeliveryAddress: {
        DeliveryAddressWithoutAddressBookLink: Object.fromEntries(
          ['CompanyName', 'Name', 'Street', 'PostCode', 'City', 'Country', 'PhoneNumber'].map((k) => [
            k,
            null,
          ]),
        ),
      },
    });
  });

  it('puts the order number where the settings say, and the template everywhere it names it', () => {
    const noNote = { ...order, note: undefined };
    const inText = options({ INTAKE_ORDER_NUMBER_FIELD: 'Text', INTAKE_ORDER_TEXT: '{number} / {number}' });
    expect(mapShopOrder('shopify', order, refs, inText, at)).toMatchObject({
      Text: 'W-9001 / W-9001',
      Note: 'Ring twice',
    });
    expect(mapShopOrder('shopify', noNote, refs, inText, at).Note).toBeNull();
    const doklad = mapShopOrder(
      'shopify',
      noNote,
      refs,
      options({ INTAKE_ORDER_NUMBER_FIELD: 'Doklad' }),
      at,
    );
    expect(doklad).toMatchObject({ Doklad: 'W-9001', Note: null });
    expect(mapShopOrder('shopify', noNote, refs, options(), at)).not.toHaveProperty('Doklad');
  });

  it('tries the partner matchers in turn: an unknown IČO, then the e-mail, case-insensitively', () => {
    const both = options({ INTAKE_PARTNER_MATCH: 'registration-number,email' });
    const body = mapShopOrder('shopify', order, refs, both, at);
    expect(body.BusinessPartnerAddress).toMatchObject({
      DocumentAddressWithAddressBookLink: { Id: PARTNER },
    });
    expect(body.InternalNote).toBe('[eshop-order shopify:9001] [partner-from-checkout]');
    const byEmailOnly = options({ INTAKE_PARTNER_MATCH: 'email' });
    const noEmail = {
      ...order,
      customer: { ...order.customer, email: undefined, registrationNumber: '47852369' },
    };
    expect(mapShopOrder('shopify', noEmail, refs, byEmailOnly, at).BusinessPartnerAddress).toHaveProperty(
      'DocumentAddressWithoutAddressBookLink',
    );
    const emailFirst = options({ INTAKE_PARTNER_MATCH: 'email,registration-number' });
    const unknownEmail = {
      ...order,
      customer: { ...order.customer, email: 'x@example.sk', registrationNumber: '47852369' },
    };
    expect(mapShopOrder('shopify', unknownEmail, refs, emailFirst, at).BusinessPartnerAddress).toMatchObject({
      DocumentAddressWithAddressBookLink: { Id: 'dddddddd-2222-4333-8444-555555555555' },
    });
    const byIco = options({ INTAKE_PARTNER_MATCH: 'registration-number' });
    const noIco = { ...order, customer: { ...order.customer, registrationNumber: undefined } };
    expect(mapShopOrder('shopify', noIco, refs, byIco, at).BusinessPartnerAddress).toHaveProperty(
      'DocumentAddressWithoutAddressBookLink',
    );
  });

  it('books the home currency of the list without CurrencyId, whatever the settings call home', () => {
    const body = mapShopOrder('shopify', order, refs, options({ INTAKE_HOME_CURRENCY: 'CZK' }), at);
    expect(body).not.toHaveProperty('CurrencyId');
  });
});

describe('mapShopOrder refusals', () => {
  it('names each charge whose rate it cannot map, in one MappingError', () => {
    const odd: ShopOrder = {
      ...order,
      shipping: [{ name: 'Kuriér', price: 3, vatRatePercent: 7 }],
      paymentFees: [{ name: 'Dobierka', price: 1, vatRatePercent: 8 }],
    };
    let refused: unknown;
    try {
      mapShopOrder('shopify', odd, refs, options(), at);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(MappingError);
    expect((refused as MappingError).name).toBe('MappingError');
    expect((refused as MappingError).message).toBe(
      "the order cannot be mapped: shipping[0]: VAT rate 7 % is not one of the connection's VAT rates; paymentFees[0]: VAT rate 8 % is not one of the connection's VAT rates",
    );
  });

  it('a request the service would refuse fails here, naming the field, with the cause', () => {
    let refused: unknown;
    try {
      mapShopOrder('shopify', { ...order, currency: 'CZK' }, refs, options(), at);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(MappingError);
    const error = refused as MappingError;
    expect(error.reasons).toHaveLength(1);
    expect(error.reasons[0]).toMatch(/^CurrencyId: \S/);
    expect(error.cause).toBeDefined();
    const badItem: IntakeReferences = { ...refs, priceListItems: new Map([['KAN-001', 'not-a-guid']]) };
    expect(() => mapShopOrder('shopify', order, badItem, options(), at)).toThrow(
      /^the order cannot be mapped: Items\.0\.PriceListItem\.PriceListItemId: \S/,
    );
  });
});

describe('vatRateTypeFor', () => {
  const bounded: IntakeReferences = {
    ...refs,
    vatRates: [
      { type: 'FirstReducedVatRate', percent: 10, validFrom: 1000, validTo: 2000 },
      { type: 'ZeroVatRate', percent: 0 },
    ],
  };
  it('holds a rate valid from and to its bounds, both included', () => {
    expect(vatRateTypeFor(bounded, 10, 1000)).toBe('FirstReducedVatRate');
    expect(vatRateTypeFor(bounded, 10, 2000)).toBe('FirstReducedVatRate');
    expect(vatRateTypeFor(bounded, 10, 999)).toBeUndefined();
    expect(vatRateTypeFor(bounded, 10, 2001)).toBeUndefined();
  });

  it('matches a percent within less than 0.005, and 0 % as the zero rate even when unlisted', () => {
    expect(vatRateTypeFor(bounded, 10.004, 1500)).toBe('FirstReducedVatRate');
    expect(vatRateTypeFor(bounded, 0.005, 1500)).toBeUndefined();
    expect(vatRateTypeFor(refs, 0, Date.parse('2026-01-01'))).toBe('ZeroVatRate');
  });
});
