import { describe, expect, it } from 'vitest';
import { collections, collectionsFor } from '../../functions/accounting/collections.js';
import {
  buildPath,
  operations,
  operationsFor,
  resolveOperations,
} from '../../functions/accounting/endpoints.js';

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

  it('encodes path parameters and names a missing one', () => {
    expect(buildPath('/v1/X/{id}', { id: 'a/b' })).toBe('/v1/X/a%2Fb');
    expect(() => buildPath('/v1/X/{id}')).toThrow(/'id' is missing/);
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
