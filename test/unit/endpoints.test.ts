import { describe, expect, it } from 'vitest';
import { collections } from '../../functions/accounting/collections.js';
import { buildPath, operations, resolveOperations } from '../../functions/accounting/endpoints.js';

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
    const byId = resolveOperations({ 'EInvoicing.status': '/v1/Peppol/{sendingId}' });
    expect(byId.get('EInvoicing.status')?.path).toBe('/v1/Peppol/{sendingId}');
    expect(() => resolveOperations({ 'Nope.list': '/x' })).toThrow(/unknown operation 'Nope.list'/);
  });

  it('encodes path parameters and names a missing one', () => {
    expect(buildPath('/v1/X/{id}', { id: 'a/b' })).toBe('/v1/X/a%2Fb');
    expect(() => buildPath('/v1/X/{id}')).toThrow(/'id' is missing/);
  });
});
