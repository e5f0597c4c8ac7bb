import { describe, expect, it } from 'vitest';
import { collections, collectionsFor } from '#functions/accounting/collections.js';
import { buildPath, operations, operationsFor, resolveOperations } from '#functions/accounting/endpoints.js';
import { InvalidArgumentError } from '#functions/accounting/errors.js';

describe('endpoint catalog', () => {
  it('has unique operation ids and one list per collection', () => {
    const ids = operations.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of collections) expect(ids).toContain(`${c.name}.list`);
    expect(collections.filter((c) => c.kind !== 'document')).toHaveLength(19);
    expect(collections.filter((c) => c.kind === 'document')).toHaveLength(11);
  });

  it('uses the contract paths verbatim where it shows them', () => {
    const byId = resolveOperations();
    expect(byId.get('ReceivedOrders.transferToIssueSlip')).toMatchObject({
      method: 'POST',
      path: '/v1/ReceivedOrders/{id}/Transfer/ToIssueSlip/Fully',
      assumed: false,
    });
    expect(byId.get('IssuedInvoices.isdoc')?.path).toBe('/v1/IssuedInvoices/{id}/isdoc');
  });

  it('lets configuration override an assumed path and rejects unknown ids', () => {
    const byId = resolveOperations('sk', { 'EInvoicing.status': '/v1/Peppol/{sendingId}' });
    expect(byId.get('EInvoicing.status')?.path).toBe('/v1/Peppol/{sendingId}');
    expect(() => resolveOperations('sk', { 'Nope.list': '/x' })).toThrow(/unknown operation 'Nope.list'/);
  });

  it('fills checked path parameters and refuses a missing one or one of another shape', () => {
    const id = '0A1B2C3D-0000-4000-8000-00000000000F';
    expect(buildPath('/v1/{collection}/{id}', { collection: 'IssuedInvoices', id })).toBe(
      `/v1/IssuedInvoices/${id}`,
    );
    expect(() => buildPath('/v1/X/{id}')).toThrow(InvalidArgumentError);
    expect(() => buildPath('/v1/X/{id}')).toThrow(/params\.id/);
    for (const hostile of ['a/b', '..', '.', '%2e%2e', `${id}/..`, ` ${id}`]) {
      expect(() => buildPath('/v1/X/{id}', { id: hostile })).toThrow(InvalidArgumentError);
    }
    expect(() => buildPath('/v1/{collection}/{id}', { collection: '..', id })).toThrow(InvalidArgumentError);
  });

  it('keeps each variant apart: Slovak-only operations are absent from cz and vice versa', () => {
    const cz = new Set(operationsFor('cz').map((o) => o.id));
    const sk = new Set(operationsFor('sk').map((o) => o.id));
    expect(operationsFor('cz').filter((o) => o.assumed)).toEqual([]);
    for (const o of operationsFor('sk').filter((o) => o.assumed)) expect(cz.has(o.id)).toBe(false);
    expect(cz.has('ReceivedOrders.transferToIssuedInvoice')).toBe(true);
    expect(sk.has('ReceivedOrders.transferToIssuedInvoice')).toBe(false);
    expect(sk.has('ReceivedOrders.transferToIssueSlip')).toBe(true);
    expect(cz.has('ReceivedOrders.transferToIssueSlip')).toBe(false);
    expect(collectionsFor('cz').map((c) => c.name)).toContain('IssuedInvoiceCorrectiveTaxDocuments');
    expect(collectionsFor('sk').map((c) => c.name)).toContain('IssuedCreditNotes');
    expect(resolveOperations('cz').get('IssuedInvoices.liquidateStandalonePartially')?.path).toBe(
      '/v1/IssuedInvoices/{DocumentId}/Liquidate/Standalone/Partially',
    );
    expect(() => resolveOperations('cz', { 'EInvoicing.status': '/x' })).toThrow(/unknown operation/);
  });
});
