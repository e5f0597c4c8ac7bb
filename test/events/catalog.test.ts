import { describe, expect, it } from 'vitest';
import { collectionsFor, serviceVariants } from '#functions/accounting/collections.js';
import { EventValidationError } from '#functions/core/errors.js';
import { eventCatalog, findCatalogEntry, parseDetail, toJsonSchemas } from '#functions/core/event-catalog.js';
import { EVENT_CATALOG_VERSION } from '#functions/core/events/catalog-entry.js';
import { CATALOG_VERSION } from '#functions/core/events/catalog-version.js';
import { idempotencyKey } from '#functions/core/events/envelope.js';
import { catalogChangelog, renderSchemaFiles } from '#functions/core/events/render-docs.js';
import { catalogFingerprint, currentCatalogVersion, staleFiles } from '#functions/local/write-schemas.js';

describe('event catalog', () => {
  it('has Created, Updated and Deleted for every collection of either variant', () => {
    for (const c of serviceVariants.flatMap((v) => collectionsFor(v))) {
      for (const change of ['Created', 'Updated', 'Deleted']) {
        expect(findCatalogEntry(`${c.recordType}.${change}`), `${c.recordType}.${change}`).toBeDefined();
      }
    }
  });

  it('describes every detail-type with the right article (an IssuedInvoice, a ReceivedOrder)', () => {
    for (const entry of eventCatalog) {
      expect(entry.description, entry.detailType).not.toMatch(/\b[Aa] [AEIOU]/);
      expect(entry.description, entry.detailType).not.toMatch(/\b[Aa]n [B-DF-HJ-NP-TV-Z]/);
    }
    expect(findCatalogEntry('IssuedOffer.Transferred')?.description).toBe(
      'An IssuedOffer was transferred fully to a ReceivedOrder.',
    );
  });

  it('uses the real DTO names, and no longer the contract’s invented ones (catalog version 2)', () => {
    expect(findCatalogEntry('IssuedInvoiceCorrectiveTaxDocument.Created')).toBeDefined();
    for (const name of [
      'PaymentMethod',
      'RegistrationNumber',
      'SellingPrice',
      'CityPostCode',
      'Establishment',
      'Region',
    ])
      expect(findCatalogEntry(`${name}.Updated`)).toBeDefined();
    for (const old of [
      'PostalCode',
      'BusinessPremise',
      'PaymentTypeKind',
      'PaymentForm',
      'SerialNumber',
      'SalesPrice',
      'District',
    ])
      expect(findCatalogEntry(`${old}.Created`)).toBeUndefined();
  });

  it('accepts a reference record with or without ModifiedDate (cz carries it, sk does not)', () => {
    const example = findCatalogEntry('Region.Updated')!.example as Record<string, unknown>;
    expect(example.modifiedDate).toBeNull();
    const cz = {
      ...example,
      modifiedDate: '2026-03-04T16:40:12Z',
      record: { ...(example.record as object), ModificationInfo: { ModifiedDate: '2026-03-04T16:40:12Z' } },
    };
    expect(() => parseDetail('Region.Updated', cz)).not.toThrow();
    expect(() => parseDetail('Region.Updated', { ...cz, modifiedDate: 'yesterday' })).toThrow(/modifiedDate/);
    // Documents always carry it.
    const invoice = findCatalogEntry('IssuedInvoice.Created')!.example as Record<string, unknown>;
    expect(() => parseDetail('IssuedInvoice.Created', { ...invoice, modifiedDate: null })).toThrow();
  });

  it('has unique detail-types', () => {
    const types = eventCatalog.map((e) => e.detailType);
    expect(new Set(types).size).toBe(types.length);
  });

  it('parses every example with its own schema', () => {
    for (const entry of eventCatalog) {
      const result = entry.schema.safeParse(entry.example);
      expect(result.success, `${entry.detailType}: ${result.error?.message}`).toBe(true);
    }
  });

  it('rejects a detail of the wrong record type and names the field', () => {
    const example = findCatalogEntry('IssuedInvoice.Created')!.example as Record<string, unknown>;
    expect(() => parseDetail('IssuedInvoice.Created', { ...example, recordType: 'ReceivedOrder' })).toThrow(
      /recordType/,
    );
    expect(() => parseDetail('Nope.Created', example)).toThrow(EventValidationError);
  });

  it('accepts a recordRef instead of a record', () => {
    const example = findCatalogEntry('ReceivedOrder.Updated')!.example as Record<string, unknown>;
    const { record: _record, ...rest } = example;
    const withRef = {
      ...rest,
      recordRef: { key: 'claims/acme/x.json', sha256: 'a'.repeat(64), size: 2_000_000 },
    };
    expect(() => parseDetail('ReceivedOrder.Updated', withRef)).not.toThrow();
    expect(() => parseDetail('ReceivedOrder.Updated', rest)).toThrow(EventValidationError);
  });

  it('derives the idempotency key only from connection, record type, id and ModifiedDate', () => {
    const a = idempotencyKey('acme', 'IssuedInvoice', 'id-1', '2026-03-04T16:40:12Z');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKey('acme', 'IssuedInvoice', 'id-1', '2026-03-04T16:40:12Z')).toBe(a);
    expect(idempotencyKey('acme', 'IssuedInvoice', 'id-1', '2026-03-04T16:40:13Z')).not.toBe(a);
    expect(idempotencyKey('other', 'IssuedInvoice', 'id-1', '2026-03-04T16:40:12Z')).not.toBe(a);
  });

  it('exports a JSON Schema per detail-type', () => {
    const schemas = toJsonSchemas();
    expect(Object.keys(schemas)).toHaveLength(eventCatalog.length);
    const one = schemas['IssuedInvoice.Created'] as Record<string, unknown>;
    expect(one.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(one.title).toBe('IssuedInvoice.Created');
  });

  it('has committed schemas and docs/events.md up to date (npx tsx functions/local/write-schemas.ts)', async () => {
    expect(await staleFiles('events/schemas', 'docs/events.md', 'README.md')).toEqual([]);
  });

  it('moves the catalog version when a schema changes, and keeps a changelog note per version', () => {
    const now = currentCatalogVersion();
    expect(now).toEqual({ version: EVENT_CATALOG_VERSION, fingerprint: CATALOG_VERSION.fingerprint });
    // Schemas other than those the committed version was written for: the next version.
    expect(currentCatalogVersion({ version: 8, fingerprint: 'f'.repeat(64) })).toEqual({
      version: 9,
      fingerprint: now.fingerprint,
    });
    const files = renderSchemaFiles(eventCatalog);
    const changed = new Map(files);
    changed.set('EshopOrder.Paid.json', `${files.get('EshopOrder.Paid.json')} `);
    expect(catalogFingerprint(changed)).not.toBe(now.fingerprint);
    // The version alone (index.json) is not a change of the catalog.
    changed.set('EshopOrder.Paid.json', files.get('EshopOrder.Paid.json') as string);
    changed.set('index.json', '{}');
    expect(catalogFingerprint(changed)).toBe(now.fingerprint);
    expect(catalogChangelog[0]?.version).toBe(EVENT_CATALOG_VERSION);
  });
});
