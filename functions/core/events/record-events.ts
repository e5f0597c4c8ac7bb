/**
 * Catalog entries of the record events: `<RecordType>.Created|Updated|Deleted` for every
 * collection of `functions/accounting/collections.ts` in either service variant (record types
 * are the real DTO names), each with its zod schema and an example.
 */
import { createHash } from 'node:crypto';
import { type CollectionSpec, collectionsFor, serviceVariants } from '#functions/accounting/collections.js';
import { type CatalogEntry, ENVELOPE_VERSION, withArticle } from './catalog-entry.js';
import {
  type ChangeKind,
  changeKinds,
  envelopeSchema,
  idempotencyKey,
  type RecordDetailType,
  recordDetailType,
} from './envelope.js';

/** Connection name used in the examples. */
export const EXAMPLE_CONNECTION = 'acme';

/** A GUID that is stable for a seed, so examples and generated docs do not churn. */
function exampleGuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const CREATED = '2026-03-02T09:14:05Z';
const MODIFIED = '2026-03-04T16:40:12Z';

function exampleRecord(c: CollectionSpec, change: ChangeKind): Record<string, unknown> & { Id: string } {
  const Id = exampleGuid(c.recordType);
  const modificationInfo = {
    CreatedDate: CREATED,
    CreatedBy: exampleGuid('user'),
    ModifiedDate: change === 'Created' ? CREATED : MODIFIED,
    ModifiedBy: exampleGuid('user'),
  };
  if (c.kind === 'addressBook') {
    return {
      Id,
      CompanyName: 'Tatra Trade s.r.o.',
      Name: 'Tatra Trade',
      IdentificationNumber: '12345678',
      TaxIdentificationNumber: '2020123456',
      Street: 'Hlavná 1',
      PostCode: '81101',
      City: 'Bratislava',
      Country: 'SK',
      Email: 'office@tatra-trade.example',
      ModificationInfo: modificationInfo,
    };
  }
  if (c.kind === 'document') {
    return {
      Id,
      DocumentNumber: `${c.recordType.replace(/[a-z]/g, '')}2026000042`,
      IssueDate: '2026-03-02',
      Text: 'Delivery of goods',
      CurrencyId: exampleGuid('EUR'),
      BusinessPartnerAddress: { CompanyName: 'Tatra Trade s.r.o.', City: 'Bratislava', Country: 'SK' },
      Items: [
        {
          Id: exampleGuid(`${c.recordType}-item`),
          Code: 'W-100',
          Text: 'Widget',
          Quantity: 2,
          Unit: 'pcs',
          UnitPrice: 50,
          UnitPriceVatType: 'WithoutVat',
          VatRateType: 'BasicVatRate',
          PriceWithoutVat: 100,
          Vat: 23,
          PriceWithVat: 123,
        },
      ],
      DocumentRecapitulation: { TotalPrice: 123 },
      ModificationInfo: modificationInfo,
    };
  }
  return { Id, Code: 'X1', Name: `Example ${c.recordType}` };
}

function exampleDetail(c: CollectionSpec, change: ChangeKind) {
  const deleted = change === 'Deleted';
  const full = exampleRecord(c, change);
  const id = full.Id;
  // A deletion carries only the id; its version is `deleted`.
  const record = deleted ? { Id: id } : full;
  const modifiedDate = !deleted && c.modificationInfo ? (change === 'Created' ? CREATED : MODIFIED) : null;
  const version = deleted
    ? 'deleted'
    : (modifiedDate ?? `content:${createHash('sha256').update(JSON.stringify(record)).digest('hex')}`);
  return {
    version: ENVELOPE_VERSION,
    connection: EXAMPLE_CONNECTION,
    recordType: c.recordType,
    id,
    change,
    modifiedDate,
    idempotencyKey: idempotencyKey(EXAMPLE_CONNECTION, c.recordType, id, version),
    record,
  };
}

function describe(c: CollectionSpec, change: ChangeKind, tracked: boolean | 'by-variant'): string {
  if (tracked === 'by-variant' && change !== 'Deleted') {
    return change === 'Created'
      ? `${withArticle(c.recordType, true)} appeared in the reference list (opt-in; cz: read by ModifiedSince, sk: full scan).`
      : `${withArticle(c.recordType, true)} changed (opt-in; cz: a new ModifiedDate, sk: a content hash diff).`;
  }
  switch (change) {
    case 'Created':
      return c.modificationInfo
        ? `${withArticle(c.recordType, true)} appeared (its CreatedDate falls in the polled window, or it is seen for the first time).`
        : `${withArticle(c.recordType, true)} appeared in the reference list (opt-in full scan).`;
    case 'Updated':
      return c.modificationInfo
        ? `A known ${c.recordType} has a new ModifiedDate.`
        : `The content of ${withArticle(c.recordType)} changed (opt-in full scan, hash diff).`;
    case 'Deleted':
      return `${withArticle(c.recordType, true)} is no longer listed by the service (periodic reconciliation).`;
  }
}

/** One row per record type of either variant (first variant's row wins for the example). */
function catalogCollections(): { spec: CollectionSpec; modificationInfo: boolean | 'by-variant' }[] {
  const rows = new Map<string, CollectionSpec[]>();
  for (const variant of serviceVariants) {
    for (const c of collectionsFor(variant)) rows.set(c.recordType, [...(rows.get(c.recordType) ?? []), c]);
  }
  return [...rows.values()].map((specs) => {
    const flags = new Set(specs.map((s) => s.modificationInfo));
    const spec = specs[0] as CollectionSpec;
    return { spec, modificationInfo: flags.size > 1 ? 'by-variant' : spec.modificationInfo };
  });
}

export const recordEvents: CatalogEntry<RecordDetailType>[] = catalogCollections().flatMap(
  ({ spec: c, modificationInfo }) =>
    changeKinds.map((change) => ({
      detailType: recordDetailType(c.recordType, change),
      description: describe(c, change, modificationInfo),
      schema: envelopeSchema({ recordType: c.recordType, change, modificationInfo }),
      example: exampleDetail(c, change),
    })),
);
