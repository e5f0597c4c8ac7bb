/**
 * Conformance (a): the `cz` endpoint catalog holds exactly the operations of the public OpenAPI
 * (method + path, placeholder names included), and the collection rows say what the OpenAPI says
 * about each list (which query parameters it takes, by-id, file exports, create).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectionsFor } from '#functions/accounting/collections.js';
import { operationsFor } from '#functions/accounting/endpoints.js';
import { loadOpenApi, OPENAPI_CZ_FILE } from './openapi.js';

const api = loadOpenApi();
const doc = JSON.parse(readFileSync(OPENAPI_CZ_FILE, 'utf8')) as {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
};
const queryParameters = (method: string, path: string) =>
  new Set(
    (doc.paths[path]?.[method.toLowerCase()]?.parameters ?? [])
      .filter((p) => p.in === 'query')
      .map((p) => p.name),
  );
type Schema = { properties?: Record<string, Schema>; items?: Schema };
const listItemProperties = (path: string) =>
  (api.responseSchema('GET', path, 200) as Schema).properties?.Items?.items?.properties ?? {};
const key = (o: { method: string; path: string }) => `${o.method} ${o.path}`;
const openapiOps = new Set(api.operations().map(key));

describe('conformance (a): the cz catalog and the OpenAPI', () => {
  it('hold the same operations, method and path', () => {
    const catalog = operationsFor('cz').map(key);
    expect(new Set(catalog).size).toBe(catalog.length);
    expect(catalog.filter((op) => !openapiOps.has(op))).toEqual([]);
    expect([...openapiOps].filter((op) => !catalog.includes(op))).toEqual([]);
    expect(catalog).toHaveLength(87);
    expect(operationsFor('cz').filter((o) => o.assumed)).toEqual([]);
  });

  it('marks as paged exactly the lists whose OpenAPI operation takes PageSize, and After where it does', () => {
    for (const op of operationsFor('cz').filter((o) => o.method === 'GET')) {
      const params = queryParameters('GET', op.path);
      expect({ op: op.id, paged: op.paged === true }).toEqual({ op: op.id, paged: params.has('PageSize') });
      if (op.paged) {
        expect({ op: op.id, after: op.acceptsAfter === true }).toEqual({
          op: op.id,
          after: params.has('After'),
        });
        expect(params.has('ModifiedSince')).toBe(true);
      }
    }
  });

  it('describes each collection as the OpenAPI does (by id, pdf, isdoc, create, ModificationInfo)', () => {
    for (const c of collectionsFor('cz')) {
      const has = (method: string, path: string) => openapiOps.has(`${method} /v1/${c.name}${path}`);
      expect({ name: c.name, getById: c.getById, pdf: c.pdf, isdoc: c.isdoc }).toEqual({
        name: c.name,
        getById: has('GET', '/{id}'),
        pdf: has('GET', '/{id}/pdf'),
        isdoc: has('GET', '/{id}/isdoc'),
      });
      if (c.kind === 'document')
        expect({ name: c.name, create: c.importable }).toEqual({
          name: c.name,
          create: has('POST', ''),
        });
      // Every real list carries ModificationInfo (full, or ModifiedDate only on general lists).
      const item = listItemProperties(`/v1/${c.name}`);
      expect({ name: c.name, modificationInfo: 'ModificationInfo' in item }).toEqual({
        name: c.name,
        modificationInfo: c.modificationInfo,
      });
    }
  });
});
