import { describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { InvalidArgumentError, ValidationError } from '#functions/accounting/errors.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { useFakeServer } from '../fakes/accounting-server.js';

const ID = '22222222-2222-2222-2222-222222222222';

describe('accounting client against the real service’s shapes', () => {
  const server = useFakeServer();
  const client = (more = {}) =>
    createAccountingClient(apiKeyConfig(server.url, { maxAttempts: 1, ...more }), {
      clock: createManualClock({ autoAdvance: true }),
    });

  it('checks a body against the variant’s DTO before it leaves, naming the field', async () => {
    const cz = client({ variant: 'cz' });
    const noItems = await cz.create('IssuedInvoices.create', { body: { Note: 'x' } }).catch((e) => e);
    expect(noItems).toBeInstanceOf(InvalidArgumentError);
    expect((noItems as Error).message).toContain('IssuedInvoices.create (Items: expected array)');
    const unknown = await cz
      .create('ReceivedOrders.create', {
        body: { BusinessPartnerAddress: {}, Items: [{ TextItem: { Text: 'x' } }], Doklad: 'D1' },
      })
      .catch((e) => e);
    expect(unknown).toBeInstanceOf(InvalidArgumentError);
    expect((unknown as Error).message).toContain('no property the DTO lacks');
    const badAmount = await cz
      .create('IssuedInvoices.liquidateStandalonePartially', {
        params: { DocumentId: ID },
        body: { DocumentCurrencyAmount: 'ten' },
      })
      .catch((e) => e);
    expect((badAmount as Error).message).toContain('DocumentCurrencyAmount: expected number');
    expect(server.requests).toHaveLength(0);
  });

  it('sends the Slovak contract’s additions only in sk (Doklad on a received order)', async () => {
    server.route('POST', '/v1/ReceivedOrders', {
      status: 201,
      body: { Data: { Id: ID, DocumentNumber: 'RO1' }, Warnings: [] },
    });
    const created = await client().create('ReceivedOrders.create', {
      body: { BusinessPartnerAddress: {}, Items: [{ TextItem: { Text: 'x', Quantity: 1 } }], Doklad: 'D1' },
    });
    expect(created.data?.Id).toBe(ID);
    expect(JSON.parse(server.requests[0]?.body ?? '{}')).toMatchObject({ Doklad: 'D1' });
  });

  it('reads the traceId from Extensions (the OpenAPI’s ProblemDetails)', async () => {
    server.route('POST', '/v1/IssuedInvoices', {
      status: 422,
      headers: { 'content-type': 'application/problem+json' },
      body: {
        Type: null,
        Title: 'Unprocessable Entity',
        Status: 422,
        Detail: null,
        Instance: null,
        Extensions: { traceId: '00-ext-trace-00' },
        Errors: { Items: ["'Items' must not be empty."] },
      },
    });
    const error = await client({ variant: 'cz' })
      .create('IssuedInvoices.create', { body: { Items: [{ TextItem: { Text: 'x' } }] } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).traceId).toBe('00-ext-trace-00');
  });

  it('accepts an empty or null Pagination.PageNumber in keyset mode', async () => {
    const item = (id: string) => ({
      Id: id,
      ModificationInfo: { CreatedDate: '2026-01-01T00:00:00Z', ModifiedDate: '2026-01-01T00:00:00Z' },
    });
    server.route('GET', '/v1/IssuedInvoices', (req) => {
      const after = req.query.get('After');
      return after
        ? {
            body: {
              Items: [],
              TotalItemCount: 0,
              Pagination: { PageNumber: null, PageSize: 2, After: after },
            },
          }
        : {
            body: {
              Items: [item('a'), item('b')],
              TotalItemCount: 0,
              Pagination: { PageNumber: '', PageSize: 2, After: null },
            },
          };
    });
    const ids: string[] = [];
    for await (const r of client().listItems('IssuedInvoices', { pageSize: 2 })) ids.push(r.Id);
    expect(ids).toEqual(['a', 'b']);
  });
});
