/**
 * An archived ISDOC as the console shows it: the parties, the lines, VAT per rate and the totals,
 * read from the XML (any namespace prefix), with the official schema's verdict alongside.
 */
import { XMLParser } from 'fast-xml-parser';
import type { IsdocSchema } from '#functions/core/actions/ports.js';

export interface IsdocParty {
  name: string;
  id: string;
  vatId: string;
  address: string;
}

export interface IsdocLine {
  id: string;
  description: string;
  quantity: string;
  unit: string;
  unitPrice: string;
  vatPercent: string;
  amount: string;
  amountWithVat: string;
}

export interface IsdocView {
  id: string;
  version: string;
  documentType: string;
  issueDate: string;
  taxPointDate: string;
  currency: string;
  supplier: IsdocParty;
  customer: IsdocParty;
  lines: IsdocLine[];
  vat: { percent: string; taxable: string; tax: string; total: string }[];
  totals: { withoutVat: string; vat: string; withVat: string; payable: string };
  verdict: { schema: string; valid: boolean; errors: string[] };
}

/** The XML is not an ISDOC the console can show. */
export class IsdocViewError extends Error {
  override readonly name = 'IsdocViewError';
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  removeNSPrefix: true,
  isArray: (name) => name === 'InvoiceLine' || name === 'TaxSubTotal' || name === 'PartyTaxScheme',
});

function child(node: unknown, ...path: string[]): unknown {
  let at = node;
  for (const name of path) at = at !== null && typeof at === 'object' ? (at as Node)[name] : undefined;
  return at;
}

function text(node: unknown, ...path: string[]): string {
  const at = child(node, ...path);
  if (typeof at === 'string') return at;
  const inner = child(at, '#text');
  return typeof inner === 'string' ? inner : '';
}

function party(node: unknown): IsdocParty {
  const p = child(node, 'Party');
  const address = child(p, 'PostalAddress');
  const schemes = (child(p, 'PartyTaxScheme') as unknown[] | undefined) ?? [];
  const vat = schemes.find((s) => text(s, 'TaxScheme') === 'VAT');
  return {
    name: text(p, 'PartyName', 'Name'),
    id: text(p, 'PartyIdentification', 'ID'),
    vatId: vat ? text(vat, 'CompanyID') : '',
    address: [
      `${text(address, 'StreetName')} ${text(address, 'BuildingNumber')}`.trim(),
      `${text(address, 'PostalZone')} ${text(address, 'CityName')}`.trim(),
      text(address, 'Country', 'IdentificationCode'),
    ]
      .filter(Boolean)
      .join(', '),
  };
}

function line(node: unknown): IsdocLine {
  return {
    id: text(node, 'ID'),
    description: text(node, 'Item', 'Description'),
    quantity: text(node, 'InvoicedQuantity'),
    unit: text(child(node, 'InvoicedQuantity'), '@_unitCode'),
    unitPrice: text(node, 'UnitPrice'),
    vatPercent: text(node, 'ClassifiedTaxCategory', 'Percent'),
    amount: text(node, 'LineExtensionAmount'),
    amountWithVat: text(node, 'LineExtensionAmountTaxInclusive'),
  };
}

/** Reads `bytes` as an ISDOC and asks `schema` for its verdict. */
export async function readIsdocView(bytes: Uint8Array, schema: IsdocSchema): Promise<IsdocView> {
  let doc: Node;
  try {
    doc = parser.parse(Buffer.from(bytes).toString('utf8')) as Node;
  } catch (error) {
    throw new IsdocViewError('not well-formed XML', { cause: error });
  }
  const invoice = doc.Invoice;
  if (invoice === undefined || invoice === null || typeof invoice !== 'object') {
    throw new IsdocViewError('root element: expected an ISDOC Invoice');
  }
  const verdict = await schema.validate(bytes);
  const totals = child(invoice, 'LegalMonetaryTotal');
  const subTotals = (child(invoice, 'TaxTotal', 'TaxSubTotal') as unknown[] | undefined) ?? [];
  return {
    id: text(invoice, 'ID'),
    version: text(invoice, '@_version'),
    documentType: text(invoice, 'DocumentType'),
    issueDate: text(invoice, 'IssueDate'),
    taxPointDate: text(invoice, 'TaxPointDate'),
    currency: text(invoice, 'LocalCurrencyCode'),
    supplier: party(child(invoice, 'AccountingSupplierParty')),
    customer: party(child(invoice, 'AccountingCustomerParty')),
    lines: ((child(invoice, 'InvoiceLines', 'InvoiceLine') as unknown[] | undefined) ?? []).map(line),
    vat: subTotals.map((s) => ({
      percent: text(s, 'TaxCategory', 'Percent'),
      taxable: text(s, 'TaxableAmount'),
      tax: text(s, 'TaxAmount'),
      total: text(s, 'TaxInclusiveAmount'),
    })),
    totals: {
      withoutVat: text(totals, 'TaxExclusiveAmount'),
      vat: text(invoice, 'TaxTotal', 'TaxAmount'),
      withVat: text(totals, 'TaxInclusiveAmount'),
      payable: text(totals, 'PayableAmount'),
    },
    verdict: { schema: schema.name, valid: verdict.valid, errors: verdict.errors.slice(0, 10) },
  };
}
