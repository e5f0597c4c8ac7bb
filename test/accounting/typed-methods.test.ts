/**
 * The client's typed methods: every operation of both catalogs is called by one of them (the one
 * its row names), a method picks its operation by collection, and each parses its answer with the
 * operation's schema before anything reaches the caller.
 */
import { describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { serviceVariants } from '#functions/accounting/collections.js';
import { operationsFor } from '#functions/accounting/endpoints.js';
import { InvalidArgumentError, SchemaMismatchError } from '#functions/accounting/errors.js';
import { operationMethodNames } from '#functions/accounting/operation-methods.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { useFakeServer } from '../fakes/accounting-server.js';

const ID = '51000000-0000-4000-8000-000000000001';
const SENDING = '52000000-0000-4000-8000-000000000002';

describe('typed methods of the client', () => {
  const server = useFakeServer();
  const client = (variant: 'sk' | 'cz' = 'sk') =>
    createAccountingClient(apiKeyConfig(server.url, { variant, maxAttempts: 1 }), {
      clock: createManualClock({ autoAdvance: true }),
    });

  it.each(serviceVariants)(
    'calls every operation of the %s catalog through the method its row names',
    (v) => {
      const c = client(v);
      const methods = new Set<string>();
      for (const op of operationsFor(v)) {
        expect({ op: op.id, method: typeof c[op.call as keyof typeof c] }).toEqual({
          op: op.id,
          method: 'function',
        });
        methods.add(op.call);
      }
      // Each method derived from the catalog serves some operation of a variant.
      const served = new Set(serviceVariants.flatMap((x) => operationsFor(x).map((o) => o.call)));
      expect(operationMethodNames.filter((m) => !served.has(m))).toEqual([]);
      expect(methods.size).toBeGreaterThan(15);
    },
  );

  it('picks the operation of the collection it is given', async () => {
    server.route('GET', `/v1/IssuedAdvanceInvoices/${ID}/RestToPay`, {
      body: { Id: ID, Number: 'ZF1', RestToPay: 120.5, LiquidationInfos: [] },
    });
    const status = await client().restToPay({ collection: 'IssuedAdvanceInvoices', id: ID });
    expect(status).toEqual({ Id: ID, Number: 'ZF1', RestToPay: 120.5, LiquidationInfos: [] });
    expect(server.requests.map((r) => r.path)).toEqual([`/v1/IssuedAdvanceInvoices/${ID}/RestToPay`]);
  });

  it('refuses, before any request, a collection the method has no operation for', async () => {
    const c = client();
    const wrong = { collection: 'IssueSlips', id: ID } as unknown as Parameters<typeof c.restToPay>[0];
    await expect(c.restToPay(wrong)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(c.restToPay(wrong)).rejects.toThrow(/IssuedInvoices, IssuedAdvanceInvoices/);
    expect(server.requests).toEqual([]);
  });

  it('refuses, before any request, an operation the variant lacks', async () => {
    const c = client('cz');
    await expect(
      c.sendEmail({ collection: 'IssuedInvoices', id: ID, body: { To: ['a@b.c'] } }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(server.requests).toEqual([]);
  });

  it('names the field of an answer that does not match its DTO', async () => {
    server.route('GET', `/v1/IssuedInvoices/${ID}/RestToPay`, {
      body: { Id: ID, RestToPay: 'ten' },
    });
    const error = await client()
      .restToPay({ collection: 'IssuedInvoices', id: ID })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toMatchObject({ field: 'RestToPay', expected: 'expected number' });
  });

  it('sends an e-invoice and reads the sending it answers; reads the sending status', async () => {
    server.route('POST', `/v1/IssuedInvoices/${ID}/Send/EInvoice`, {
      body: { SendingId: SENDING, Status: 'Queued' },
    });
    server.route('GET', `/v1/EInvoicing/Sendings/${SENDING}`, {
      body: { Status: 'Delivered', ResponseCode: 'AP', IsFinal: true, Extra: 1 },
    });
    const c = client();
    await expect(c.sendEInvoice({ collection: 'IssuedInvoices', id: ID })).resolves.toEqual({
      SendingId: SENDING,
      Status: 'Queued',
    });
    await expect(c.sendingStatus({ sendingId: SENDING })).resolves.toEqual({
      Status: 'Delivered',
      ResponseCode: 'AP',
      IsFinal: true,
      Extra: 1,
    });
  });

  it('refuses an e-invoice answer without a usable SendingId', async () => {
    server.route('POST', `/v1/IssuedInvoices/${ID}/Send/EInvoice`, { body: { Status: 'Queued' } });
    await expect(client().sendEInvoice({ collection: 'IssuedInvoices', id: ID })).rejects.toMatchObject({
      name: 'SchemaMismatchError',
      field: 'SendingId',
    });
  });

  it('sends an e-mail with its body checked, and drops the answer the contract does not show', async () => {
    server.route('POST', `/v1/IssuedInvoices/${ID}/Send/Email`, { body: { EmailId: ID, Status: 'Sent' } });
    const c = client();
    await expect(
      c.sendEmail({ collection: 'IssuedInvoices', id: ID, body: { To: ['a@b.c'], Subject: 'Invoice' } }),
    ).resolves.toBeUndefined();
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ To: ['a@b.c'], Subject: 'Invoice' });
    const noRecipient = { Subject: 'Invoice' } as unknown as { To: string[] };
    await expect(
      c.sendEmail({ collection: 'IssuedInvoices', id: ID, body: noRecipient }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(server.requests).toHaveLength(1);
  });

  it('reads a page of unpaid statuses with the query it is given', async () => {
    server.route('GET', '/v1/IssuedInvoices/Unpaid', {
      body: {
        Items: [{ Id: ID, RestToPay: 10, LiquidationInfos: [{ Id: SENDING, DocumentCurrencyAmount: 5 }] }],
        TotalItemCount: 1,
        Pagination: { PageSize: 50, PageNumber: null, After: null },
      },
    });
    const page = await client().unpaid({
      collection: 'IssuedInvoices',
      query: { PageSize: 50, PageNumber: 1, After: ID },
    });
    expect(page.Items[0]?.LiquidationInfos?.[0]?.DocumentCurrencyAmount).toBe(5);
    expect(Object.fromEntries(server.requests[0]?.query ?? [])).toEqual({
      PageSize: '50',
      PageNumber: '1',
      After: ID,
    });
  });
});
