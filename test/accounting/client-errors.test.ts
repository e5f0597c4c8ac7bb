import { describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import {
  ApiError,
  BadRequestError,
  ForbiddenError,
  InvalidArgumentError,
  NotFoundError,
  RateLimitedError,
  SchemaMismatchError,
  ServerError,
  UnauthorizedError,
  ValidationError,
} from '#functions/accounting/errors.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { doc, listReply, problem, useFakeServer } from '../fakes/accounting-server.js';

const ID = '22222222-2222-2222-2222-222222222222';

describe('accounting client error mapping', () => {
  const server = useFakeServer();
  const client = (more = {}) =>
    createAccountingClient(apiKeyConfig(server.url, { maxAttempts: 1, ...more }), {
      clock: createManualClock({ autoAdvance: true }),
    });

  it.each([
    [400, BadRequestError],
    [401, UnauthorizedError],
    [403, ForbiddenError],
    [404, NotFoundError],
    [409, ApiError],
    [422, ValidationError],
    [429, RateLimitedError],
    [500, ServerError],
    [503, ServerError],
  ])('maps %i to %s with method, path, status and traceId', async (status, type) => {
    server.route('GET', `/v1/Banks/${ID}`, problem(status));
    const error = await client()
      .get('Banks', ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    expect(e.status).toBe(status);
    expect(e.method).toBe('GET');
    expect(e.path).toBe(`/v1/Banks/${ID}`);
    expect(e.traceId).toBe(`00-trace-${status}-00`);
    expect(e.message).toContain(`GET /v1/Banks/${ID}`);
    expect(e.message).toContain(String(status));
    expect(e.message).toContain(`00-trace-${status}-00`);
  });

  it('keeps the validation errors of a 422 with lower-case keys, and leaves the query out of the message', async () => {
    server.route(
      'GET',
      '/v1/Banks',
      problem(422, { errors: { PageSize: ["'PageSize' must be greater than '0'."] } }),
    );
    const pages = client().listPages('Banks', { modifiedSince: '2026-01-01T00:00:00Z' });
    const error = await pages[Symbol.asyncIterator]()
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual({ PageSize: ["'PageSize' must be greater than '0'."] });
    expect((error as Error).message).toContain("'PageSize' must be greater than '0'.");
    expect((error as Error).message).not.toContain('ModifiedSince');
  });

  it('reads PascalCase problem details too', async () => {
    server.route('POST', '/v1/BusinessPartners', {
      status: 422,
      headers: { 'content-type': 'application/problem+json' },
      body: {
        Type: 'https://httpstatuses.io/422',
        Title: 'Unprocessable Entity',
        Status: 422,
        TraceId: '00-pascal-00',
        Errors: { Items: ["'Items' must not be empty."] },
      },
    });
    const error = await client()
      .create('BusinessPartners.create', { body: { City: 'Bratislava' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const e = error as ValidationError;
    expect(e.title).toBe('Unprocessable Entity');
    expect(e.traceId).toBe('00-pascal-00');
    expect(e.errors).toEqual({ Items: ["'Items' must not be empty."] });
  });

  it('handles a non-JSON error body', async () => {
    server.route('GET', `/v1/Banks/${ID}`, {
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html><body>Bad   gateway</body></html>',
    });
    const error = await client()
      .get('Banks', ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(502);
    expect((error as ServerError).detail).toContain('Bad gateway');
  });

  it('turns a malformed JSON success body into SchemaMismatchError', async () => {
    server.route('GET', `/v1/Banks/${ID}`, {
      headers: { 'content-type': 'application/json' },
      body: '{"Id": "x",',
    });
    const error = await client()
      .get('Banks', ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as SchemaMismatchError).field).toBe('(body)');
    expect((error as Error).message).toContain(`/v1/Banks/${ID}`);
  });

  it('names the path and field when a relied-on field is missing', async () => {
    server.route(
      'GET',
      '/v1/IssuedInvoices',
      listReply(
        [
          doc('a'),
          { Id: 'b', DocumentNumber: 'X', ModificationInfo: { CreatedDate: '2026-01-01T00:00:00Z' } },
        ],
        {
          pageSize: 100,
        },
      ),
    );
    const error = await (async () => {
      for await (const _ of client().listItems('IssuedInvoices')) {
        // read all
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as SchemaMismatchError).field).toBe('Items[1].ModificationInfo.ModifiedDate');
    expect((error as SchemaMismatchError).path).toBe('/v1/IssuedInvoices');
  });

  it('lists each page’s items as the service sent them, every field in its order', async () => {
    const sent = [
      {
        Future: { Field: [1, 2] },
        Id: 'a',
        ModificationInfo: { ModifiedBy: 'u', ModifiedDate: '2026-01-01T00:00:00Z', CreatedDate: null },
      },
      { Note: 'č€😀', ...doc('b'), Status: null },
    ];
    server.route('GET', '/v1/IssuedInvoices', listReply(sent, { pageSize: 100 }));
    const got: unknown[] = [];
    for await (const item of client().listItems('IssuedInvoices')) got.push(item);
    expect(JSON.stringify(got)).toBe(JSON.stringify(sent));
    server.route('GET', '/v1/Banks', listReply([{ Id: 'x' }, { Name: 'no id' }], { pageSize: 100 }));
    const error = await (async () => {
      for await (const _ of client().listItems('Banks')) {
        // read all
      }
    })().catch((e: unknown) => e);
    expect((error as SchemaMismatchError).field).toBe('Items[1].Id');
  });

  it('requires Id on records and passes every other field through', async () => {
    server.route('GET', `/v1/IssuedInvoices/${ID}`, { body: { ...doc(ID), Future: { Field: [1, 2] } } });
    const got = await client().get('IssuedInvoices', ID);
    expect(got.Future).toEqual({ Field: [1, 2] });
    server.route('GET', `/v1/Banks/${ID}`, { body: { Name: 'no id' } });
    const error = await client()
      .get('Banks', ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as SchemaMismatchError).field).toBe('Id');
  });

  it('rejects bad arguments before sending anything', async () => {
    const c = client();
    await expect(c.get('Banks', '')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(c.call('Nope.list')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(c.call('IssuedInvoices.get')).rejects.toBeInstanceOf(InvalidArgumentError); // missing {id}
    await expect(c.download('IssuedInvoices.get', { params: { id: ID } })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('returns the created envelope with its warnings', async () => {
    server.route('POST', `/v1/ReceivedOrders/${ID}/Transfer/ToIssueSlip/Fully`, {
      status: 201,
      body: { Data: doc('new-slip'), Warnings: [{ Code: 'SellingPriceCodeDoesNotExist', Message: 'w' }] },
    });
    const created = await client().create('ReceivedOrders.transferToIssueSlip', { params: { id: ID } });
    expect(created.data?.Id).toBe('new-slip');
    expect(created.warnings).toEqual([{ Code: 'SellingPriceCodeDoesNotExist', Message: 'w' }]);
    expect(server.requests[0]?.method).toBe('POST');
  });

  it('parses a bare JSON string (order status) through call()', async () => {
    server.route('GET', `/v1/IssuedOrders/${ID}/status`, {
      body: '"Finished"',
      headers: { 'content-type': 'application/json' },
    });
    await expect(client().call('IssuedOrders.status', { params: { id: ID } })).resolves.toBe('Finished');
  });
});
