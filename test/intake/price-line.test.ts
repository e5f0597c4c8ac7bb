/**
 * The price of one order line as the service is given it: the shop's unit price with the shortest
 * discount percentage that lands on the line's total to the cent, else a unit price of up to six
 * decimals, else not exact (the reconciliation then refuses the order).
 */
import { describe, expect, it } from 'vitest';
import { priceLine } from '#functions/core/intake/order-totals.js';

const cases: Array<[string, number, number, number, ReturnType<typeof priceLine>]> = [
  ['no discount: the unit price as it is', 3, 10, 3000, { unitPrice: 10, discountPercent: 0, exact: true }],
  ['a round discount', 3, 10, 2700, { unitPrice: 10, discountPercent: 10, exact: true }],
  ['a discount of two decimals', 7, 0.99, 600, { unitPrice: 0.99, discountPercent: 13.42, exact: true }],
  [
    'a discount of four decimals',
    1000,
    9.99,
    899123,
    { unitPrice: 9.99, discountPercent: 9.9977, exact: true },
  ],
  ['a fractional quantity', 0.5, 3, 149, { unitPrice: 3, discountPercent: 0.67, exact: true }],
  ['free: a discount of 100 %', 2, 5, 0, { unitPrice: 5, discountPercent: 100, exact: true }],
  [
    'above the full price: a unit price of three decimals',
    3,
    10,
    3100,
    { unitPrice: 10.333, discountPercent: 0, exact: true },
  ],
  ['above the full price by a cent', 9, 1.11, 1000, { unitPrice: 1.111, discountPercent: 0, exact: true }],
  ['a zero unit price with a total', 3, 0, 100, { unitPrice: 0.333, discountPercent: 0, exact: true }],
  ['a negative total cannot land', 3, 10, -5, { unitPrice: 0, discountPercent: 0, exact: false }],
  [
    'a discount of six decimals',
    99999,
    42.09,
    249402820,
    { unitPrice: 42.09, discountPercent: 40.744758, exact: true },
  ],
  [
    'a unit price of six decimals',
    99999,
    30.92,
    279311717,
    { unitPrice: 27.931451, discountPercent: 0, exact: true },
  ],
  [
    'nothing of six decimals lands: the nearest unit price, not exact',
    99999,
    76.42,
    740511669,
    { unitPrice: 74.051907, discountPercent: 0, exact: false },
  ],
];

describe('priceLine', () => {
  it.each(cases)('%s', (_name, quantity, unitPrice, lineTotalCents, expected) => {
    expect(priceLine(quantity, unitPrice, lineTotalCents)).toEqual(expected);
  });
});
