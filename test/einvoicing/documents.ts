/**
 * Valid Slovak domestic invoices in the service's shape, built from EN 16931 and the service's
 * published DTO (`IssuedInvoiceDto`), not from the pre-flight: a fixed one for the per-rule tests
 * and a fast-check generator for the property test.
 */
import * as fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: invoice JSON mutated field by field in the tests
export type Doc = Record<string, any>;

/** The service's Slovak VAT rates (`VatRates`: type and percentage). */
export const slovakRates = [
  { Id: '0b8e1a0c-0000-4000-8000-000000000023', VatRateType: 'BasicVatRate', VatPercent: 23 },
  { Id: '0b8e1a0c-0000-4000-8000-000000000019', VatRateType: 'FirstReducedVatRate', VatPercent: 19 },
  { Id: '0b8e1a0c-0000-4000-8000-000000000005', VatRateType: 'SecondReducedVatRate', VatPercent: 5 },
  { Id: '0b8e1a0c-0000-4000-8000-000000000000', VatRateType: 'ZeroVatRate', VatPercent: 0 },
] as const;

const percentOf = (type: string) => slovakRates.find((r) => r.VatRateType === type)?.VatPercent ?? 0;
const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;

export interface LineInput {
  text: string;
  quantity: number;
  unitPrice: number;
  vatRateType: string;
  priceVatType: 'WithoutVat' | 'WithVat';
  discount: number;
  note?: string | null;
}

/** An item as the service computes it (line amounts rounded to cents). */
export function item(input: LineInput, reverseCharge: boolean, index = 0): Doc {
  const rate = reverseCharge ? 0 : percentOf(input.vatRateType);
  const gross = input.quantity * input.unitPrice * (1 - input.discount / 100);
  let net: number;
  if (input.priceVatType === 'WithVat') net = round2(round2(gross) / (1 + rate / 100));
  else net = round2(gross);
  const vat = round2((net * rate) / 100);
  return {
    Id: `1e5a0000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    Code: null,
    Text: input.text,
    Quantity: input.quantity,
    Unit: 'ks',
    UnitPrice: input.unitPrice,
    UnitPriceVatType: reverseCharge ? 'ReverseCharge' : input.priceVatType,
    VatRateType: input.vatRateType,
    VatRateId: slovakRates.find((r) => r.VatRateType === input.vatRateType)?.Id ?? null,
    PriceWithoutVat: net,
    Vat: vat,
    PriceWithVat: round2(net + vat),
    DiscountPercentage: input.discount,
    Note: input.note ?? null,
  };
}

/** The recapitulation the service keeps: one sum per VAT rate, VAT computed on each sum. */
export function recapitulation(items: Doc[]): Doc {
  const byType = new Map<string, number>();
  for (const i of items)
    byType.set(i.VatRateType, round2((byType.get(i.VatRateType) ?? 0) + i.PriceWithoutVat));
  const sums = [...byType].map(([type, base]) => {
    const reverse = items.some((i) => i.VatRateType === type && i.UnitPriceVatType === 'ReverseCharge');
    const vat = reverse ? 0 : round2((base * percentOf(type)) / 100);
    return { PriceWithoutVat: base, Vat: vat, TotalPrice: round2(base + vat), VatRateType: type };
  });
  return {
    TotalPrice: round2(sums.reduce((s, x) => s + x.TotalPrice, 0)),
    VatRounding: 'None',
    Rounding: 'None',
    VatRateSums: sums,
  };
}

export interface InvoiceInput {
  number: string;
  lines: LineInput[];
  reverseCharge: boolean;
  buyerTaxId: string;
  variableSymbol: string | null;
  orderNumber: string | null;
}

export function invoice(input: InvoiceInput): Doc {
  const items = input.lines.map((l, i) => item(l, input.reverseCharge, i));
  return {
    Id: '1f000000-0000-4000-8000-000000000001',
    DocumentNumber: input.number,
    IssueDate: '2027-01-04T00:00:00',
    DueDate: '2027-01-18T00:00:00',
    TaxDate: '2027-01-04T00:00:00',
    VariableSymbol: input.variableSymbol,
    OrderNumber: input.orderNumber,
    CurrencyId: '5f7e9c1a-0000-4000-8000-0000000000e0',
    IsReverseCharge: input.reverseCharge,
    Text: 'Fakturujeme Vám',
    Note: null,
    BusinessPartnerAddress: {
      BusinessPartnerId: '2b000000-0000-4000-8000-000000000001',
      IdentificationNumber: '36123456',
      TaxIdentificationNumber: input.buyerTaxId,
      CompanyName: 'Odberateľ s.r.o.',
      Name: 'Ján Novák',
      Street: 'Hlavná 12',
      PostCode: '040 01',
      City: 'Košice',
      Country: 'SK',
      Email: 'fakturacia@odberatel.sk',
      DeliveryAddress: null,
    },
    Items: items,
    DocumentRecapitulation: recapitulation(items),
  };
}

/** A valid invoice with a line at each standard rate and one exempt line. */
export function validInvoice(): Doc {
  return invoice({
    number: 'FA2027000001',
    reverseCharge: false,
    buyerTaxId: 'SK2021234567',
    variableSymbol: '2027000001',
    orderNumber: null,
    lines: [
      {
        text: 'Konzultácie',
        quantity: 3,
        unitPrice: 45.5,
        vatRateType: 'BasicVatRate',
        priceVatType: 'WithoutVat',
        discount: 0,
      },
      {
        text: 'Knihy',
        quantity: 2,
        unitPrice: 12.99,
        vatRateType: 'SecondReducedVatRate',
        priceVatType: 'WithVat',
        discount: 10,
      },
      {
        text: 'Poistenie',
        quantity: 1,
        unitPrice: 20,
        vatRateType: 'ZeroVatRate',
        priceVatType: 'WithoutVat',
        discount: 0,
        note: 'Oslobodené od dane podľa § 37 zákona o DPH',
      },
    ],
  });
}

const lineArb = fc.record({
  text: fc.constantFrom('Konzultácie', 'Tovar', 'Služby', 'Doprava', 'Licencia'),
  quantity: fc.oneof(
    fc.integer({ min: 1, max: 200 }),
    fc.integer({ min: 1, max: 40 }).map((n) => n / 4),
  ),
  unitPrice: fc.integer({ min: 1, max: 500_000 }).map((c) => c / 100),
  vatRateType: fc.constantFrom('BasicVatRate', 'FirstReducedVatRate', 'SecondReducedVatRate', 'ZeroVatRate'),
  priceVatType: fc.constantFrom('WithoutVat' as const, 'WithoutVat' as const, 'WithVat' as const),
  discount: fc.constantFrom(0, 0, 5, 10, 12.5),
  note: fc.constant('Oslobodené od dane podľa § 37 zákona o DPH'),
});

/** Valid invoices: domestic B2B with a DIČ, full address, a reference, lines that add up. */
export const validInvoiceArb: fc.Arbitrary<Doc> = fc
  .record({
    number: fc.integer({ min: 1, max: 999_999 }).map((n) => `FA2027${String(n).padStart(6, '0')}`),
    lines: fc.array(lineArb, { minLength: 1, maxLength: 6 }),
    reverseCharge: fc.boolean(),
    buyerTaxId: fc
      .tuple(fc.boolean(), fc.integer({ min: 0, max: 99_999_999 }))
      .map(([vatPayer, n]) => `${vatPayer ? 'SK' : ''}20${String(n).padStart(8, '0')}`),
    variableSymbol: fc.option(fc.integer({ min: 1, max: 9_999_999_999 }).map(String), { nil: null }),
    orderNumber: fc.option(fc.constantFrom('OBJ-77', 'PO 2027/14', '4500012345'), { nil: null }),
  })
  .filter((i) => i.variableSymbol !== null || i.orderNumber !== null)
  .filter((i) => !i.reverseCharge || i.buyerTaxId.startsWith('SK'))
  // Reverse charge has one VAT breakdown (BR-AE-01): its lines share one rate of the service.
  .map((i) =>
    i.reverseCharge ? { ...i, lines: i.lines.map((l) => ({ ...l, vatRateType: 'BasicVatRate' })) } : i,
  )
  .map(invoice);
