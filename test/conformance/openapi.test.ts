import { describe, expect, it } from 'vitest';
import { fieldPath, loadOpenApi, OpenApiError } from './openapi.js';

const api = loadOpenApi();

const bank = {
  Id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  Code: 'FIOB',
  Name: 'Fio banka',
  Swift: 'FIOBCZPP',
  Web: '',
  CountryId: '3f2504e0-4f89-11d3-9a0c-0305e82c3302',
  ModificationInfo: { ModifiedDate: '2026-01-02T03:04:05Z' },
};

describe('OpenAPI fixture validator', () => {
  it('holds the 87 operations of the public description and compiles every JSON schema in it', () => {
    const ops = api.operations();
    expect(ops).toHaveLength(87);
    for (const op of ops) {
      if (op.method === 'GET' && !/\/(pdf|isdoc)$/.test(op.path)) {
        expect(() => api.validateResponse('GET', op.path, 200, null)).not.toThrow();
      }
      if (op.method === 'POST' && !op.path.includes('/Transfer/')) {
        expect(() => api.validateRequest('POST', op.path, {})).not.toThrow();
      }
    }
  });

  it('accepts a value with every DTO property and nothing else ', () => {
    const report = api.validateResponse('GET', '/v1/Banks/{id}', 200, bank);
    expect(report).toEqual({ valid: true, extra: [], missing: [], mismatched: [] });
  });

  it('reports extra, missing and mismatched field paths, with list indices collapsed', () => {
    const { Swift: _s, ...withoutSwift } = bank;
    const page = {
      Items: [bank, { ...withoutSwift, Foo: 1 }, { ...bank, Name: null, ModificationInfo: {} }],
      TotalItemCount: 3,
      Pagination: { PageNumber: null, PageSize: 50, After: null },
    };
    const report = api.validateResponse('GET', '/v1/Banks', 200, page);
    expect(report.valid).toBe(false);
    expect(report.extra).toEqual(['Items[].Foo']);
    expect(report.missing).toEqual(['Items[].ModificationInfo.ModifiedDate', 'Items[].Swift']);
    expect(report.mismatched).toEqual(['Items[].Name: must be string']);
  });

  it('accepts null for a nullable reference (Pagination) and rejects null where not nullable', () => {
    const invoice = api.validateResponse('GET', '/v1/IssuedInvoices/{id}', 200, { OrderNumber: null });
    expect(invoice.mismatched.filter((m) => m.startsWith('OrderNumber'))).toEqual([]);
    const ok = api.validateResponse('GET', '/v1/Banks', 200, {
      Items: [],
      TotalItemCount: 0,
      Pagination: null,
    });
    expect(ok.valid).toBe(true);
    const bad = api.validateResponse('GET', '/v1/Banks', 200, {
      Items: null,
      TotalItemCount: 0,
      Pagination: null,
    });
    expect(bad.mismatched).toEqual(['Items: must be array']);
  });

  it('validates a request against its own required list, still rejecting unknown properties', () => {
    const path = '/v1/IssuedInvoices/{DocumentId}/Liquidate/Standalone/Fully';
    const schema = api.requestSchema('POST', path);
    expect(schema.type).toBe('object');
    const report = api.validateRequest('POST', path, { Bogus: true });
    expect(report.extra).toEqual(['Bogus']);
    expect(() =>
      api.validateRequest('POST', '/v1/ReceivedOrders/{id}/Transfer/ToIssuedInvoice/Fully', {}),
    ).toThrow(OpenApiError);
  });

  it('turns ajv instance paths into field paths', () => {
    expect(fieldPath('/Items/0/Address', 'City')).toBe('Items[].Address.City');
    expect(fieldPath('', 'Id')).toBe('Id');
    expect(fieldPath('')).toBe('(root)');
  });
});
