/**
 * The sandbox network's own validation of an e-invoice before delivery, as an access point does
 * it: first the XML check (SV: text the UBL cannot carry), then the business rules (BV) of
 * EN 16931 and Peppol BIS 3.0 read from the rule texts against the service's document. Written for
 * the sandbox alone: it shares no code with the product's pre-flight, so the two check each other.
 */

type Obj = Record<string, unknown>;

export type NetworkVerdict =
  | { reason: 'SV'; description: string }
  | { reason: 'BV'; ruleIds: string[]; description: string }
  | null;

const asObj = (v: unknown): Obj | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null;
const filled = (v: unknown) => (typeof v === 'string' ? v.trim().length > 0 : v !== null && v !== undefined);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const toCents = (v: number) => Math.round(v * 100);

// XML 1.0 Char production: TAB, LF, CR and U+0020 onwards (no lone surrogates, no U+FFFE/U+FFFF).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML forbids
const notXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function stringsOf(value: unknown, path: string, out: [string, string][]): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) stringsOf(v, `${path}[${i}]`, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) stringsOf(v, path ? `${path}.${k}` : k, out);
  }
}

function schemaProblem(doc: Obj): string | null {
  const strings: [string, string][] = [];
  stringsOf(doc, '', strings);
  const bad = strings.find(([, s]) => notXml.test(s));
  return bad ? `character not allowed in XML in ${bad[0]}` : null;
}

/** Rounding steps of `DocumentRecapitulation.Rounding`, in cents. */
function roundingCents(kind: unknown): number {
  const k = String(kind ?? 'None');
  if (k === 'None') return 0;
  if (k.endsWith('One')) return 100;
  if (k.endsWith('Half')) return 50;
  if (k.endsWith('Tenth')) return 10;
  if (k === 'MathFiveCent') return 5;
  return 100;
}

/** The business rules the network applies, each as [rule id, broken?]. */
function businessRules(doc: Obj, percentOf: (vatRateType: unknown) => number): string[] {
  const party = asObj(doc.BusinessPartnerAddress);
  const items = (Array.isArray(doc.Items) ? doc.Items : []).map(asObj).filter((x): x is Obj => x !== null);
  const recap = asObj(doc.DocumentRecapitulation) ?? {};
  const sums = (Array.isArray(recap.VatRateSums) ? recap.VatRateSums : [])
    .map(asObj)
    .filter((x): x is Obj => x !== null);
  const reverse = doc.IsReverseCharge === true || items.some((i) => i.UnitPriceVatType === 'ReverseCharge');
  const tax = String(party?.TaxIdentificationNumber ?? '')
    .replace(/\s/g, '')
    .toUpperCase();
  const itemNets = items.reduce((s, i) => s + toCents(num(i.PriceWithoutVat)), 0);
  const sumBases = sums.reduce((s, x) => s + toCents(num(x.PriceWithoutVat)), 0);
  const sumVat = sums.reduce((s, x) => s + toCents(num(x.Vat)), 0);
  const total = toCents(num(recap.TotalPrice));
  const lineOk = (i: Obj) => {
    const p = percentOf(i.VatRateType);
    let price = num(i.UnitPrice) * (1 - num(i.DiscountPercentage) / 100);
    if (i.UnitPriceVatType === 'WithVat') price /= 1 + p / 100;
    return Math.abs(num(i.PriceWithoutVat) - num(i.Quantity) * price) <= 0.020000001;
  };
  const emptyText = (o: Obj | null, keys: string[]) =>
    keys.some((k) => typeof o?.[k] === 'string' && (o[k] as string).trim() === '');
  const checks: [string, boolean][] = [
    ['BR-02', !filled(doc.DocumentNumber)],
    ['BR-03', !filled(doc.IssueDate)],
    ['BR-05', !filled(doc.CurrencyId)],
    ['BR-07', party !== null && !filled(party.CompanyName) && !filled(party.Name)],
    ['BR-10', party === null],
    ['BR-11', party !== null && !filled(party.Country)],
    ['SK-BUYER-ADDRESS', ['Street', 'City', 'PostCode', 'Country'].some((k) => !filled(party?.[k]))],
    ['BR-16', items.length === 0],
    ['BR-25', items.some((i) => !filled(i.Text))],
    ['BR-CO-10', itemNets !== sumBases],
    ['BR-CO-13', Math.abs(total - sumVat - itemNets) > roundingCents(recap.Rounding)],
    [
      'BR-CO-17',
      sums.some((x) => {
        const p = reverse ? 0 : percentOf(x.VatRateType);
        const vat = Math.abs(toCents(num(x.Vat)));
        if (p === 0) return vat >= 50;
        return Math.abs(vat - Math.round((Math.abs(toCents(num(x.PriceWithoutVat))) * p) / 100)) >= 100;
      }),
    ],
    ['BR-CO-18', sums.length === 0],
    ['BR-CO-25', total > 0 && !filled(doc.DueDate)],
    ['BR-AE-02', reverse && !/^[A-Z]{2}/.test(tax) && !filled(party?.IdentificationNumber)],
    ['BR-E-10', !reverse && items.some((i) => percentOf(i.VatRateType) === 0 && !filled(i.Note))],
    ['PEPPOL-EN16931-R003', !filled(doc.VariableSymbol) && !filled(doc.OrderNumber)],
    [
      'PEPPOL-EN16931-R008',
      emptyText(doc, ['DocumentNumber', 'VariableSymbol', 'OrderNumber', 'ContractNumber', 'Note']) ||
        emptyText(party, [
          'CompanyName',
          'Name',
          'Street',
          'City',
          'PostCode',
          'Country',
          'IdentificationNumber',
          'TaxIdentificationNumber',
        ]) ||
        items.some((i) => emptyText(i, ['Code', 'Text', 'Unit', 'Note'])),
    ],
    ['PEPPOL-EN16931-R010', !/^(SK)?\d{10}$/.test(tax)],
    ['PEPPOL-EN16931-R053', new Set(sums.map((x) => String(x.VatRateType))).size !== sums.length],
    ['PEPPOL-EN16931-R120', items.some((i) => !lineOk(i))],
  ];
  return checks.filter(([, broken]) => broken).map(([id]) => id);
}

/** What the network says of a document before delivering it: SV, BV with the rule ids, or nothing. */
export function networkVerdict(doc: Obj, percentOf: (vatRateType: unknown) => number): NetworkVerdict {
  const schema = schemaProblem(doc);
  if (schema) return { reason: 'SV', description: `Schema validation failed: ${schema}` };
  const broken = businessRules(doc, percentOf);
  if (broken.length === 0) return null;
  return { reason: 'BV', ruleIds: broken, description: `Business rules failed: ${broken.join(', ')}` };
}
