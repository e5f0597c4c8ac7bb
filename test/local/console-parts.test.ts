/**
 * The console's parts without a browser: the request guard (Host, Origin, token, method), the
 * feed (routes, outcomes linked by causationId, attempts, connections per minute), the event
 * filters, and an ISDOC read as an invoice.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { EventBridgeEvent } from '#functions/adapters/local/local-bus.js';
import { formatConsoleError } from '#functions/local/console/console-errors.js';
import { createConsoleFeed } from '#functions/local/console/console-feed.js';
import { checkConsoleRequest, newConsoleToken } from '#functions/local/console/console-guard.js';
import { fieldDocs, parseEventFilter, selectEvents } from '#functions/local/console/event-query.js';
import { IsdocViewError, readIsdocView } from '#functions/local/console/isdoc-view.js';
import { assignBodySchema } from '#functions/local/console/payment-assignments.js';

const TOKEN = newConsoleToken();
const PORT = 4321;

function req(method: string, headers: Record<string, string>): IncomingMessage {
  return { method, headers: { host: `127.0.0.1:${PORT}`, ...headers } } as unknown as IncomingMessage;
}
const check = (method: string, path: string, headers: Record<string, string> = {}) =>
  checkConsoleRequest(req(method, headers), new URL(path, 'http://127.0.0.1'), TOKEN, PORT);
const json = { 'content-type': 'application/json' };

describe('the console guard', () => {
  it('lets the console itself in: token in the query for the page only, in the header for the rest', () => {
    expect(check('GET', '/api/events', { 'x-console-token': TOKEN })).toEqual({ ok: true });
    expect(check('GET', `/?token=${TOKEN}`, { origin: `http://127.0.0.1:${PORT}` })).toEqual({ ok: true });
    expect(
      check('POST', '/api/replay', {
        ...json,
        'x-console-token': TOKEN,
        origin: `http://localhost:${PORT}`,
        host: `localhost:${PORT}`,
      }),
    ).toEqual({ ok: true });
  });

  it.each([
    ['no token', 'GET', '/api/events', {}, 401],
    [
      'a wrong token of the same length',
      'GET',
      '/api/events',
      { 'x-console-token': 'A'.repeat(TOKEN.length) },
      401,
    ],
    ['a read with the token in the query', 'GET', `/api/events?token=${TOKEN}`, {}, 401],
    ['a POST with the token only in the query', 'POST', `/api/replay?token=${TOKEN}`, json, 401],
    [
      'another origin',
      'POST',
      '/api/replay',
      { ...json, 'x-console-token': TOKEN, origin: 'http://evil.example' },
      403,
    ],
    ['the same host on another port', 'GET', `/?token=${TOKEN}`, { origin: 'http://127.0.0.1:1' }, 403],
    ['a cross-site fetch', 'GET', `/?token=${TOKEN}`, { 'sec-fetch-site': 'cross-site' }, 403],
    ['another Host (DNS rebinding)', 'GET', `/?token=${TOKEN}`, { host: 'evil.example:4321' }, 421],
    [
      'a POST that is not JSON',
      'POST',
      '/api/replay',
      { 'x-console-token': TOKEN, 'content-type': 'text/plain' },
      415,
    ],
    ['another method', 'DELETE', '/api/events', { 'x-console-token': TOKEN }, 405],
  ] as const)('refuses %s', (_name, method, path, headers, status) => {
    const verdict = check(method, path, headers as Record<string, string>);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? 0 : verdict.status).toBe(status);
  });

  it('makes a new 43-character token for every run', () => {
    expect(TOKEN).toMatch(/^[\w-]{43}$/);
    expect(newConsoleToken()).not.toBe(TOKEN);
  });
});

function event(
  id: string,
  detailType: string,
  detail: Record<string, unknown>,
  time = '2026-01-31T12:00:00Z',
): EventBridgeEvent {
  return {
    version: '0',
    id,
    'detail-type': detailType,
    source: 'accounting.sandbox',
    account: '0',
    time,
    region: 'local',
    resources: [],
    detail,
  };
}

describe('the console feed', () => {
  it('keeps the routes of an event, their attempts and the outcome event its action published', () => {
    let now = 1_000;
    const feed = createConsoleFeed({ now: () => now });
    feed.onUpdate({
      kind: 'started',
      service: 's',
      sandbox: true,
      dataDir: 'd',
      collections: [],
      intervalMs: 1,
      actions: [],
      connections: ['sandbox'],
    });
    const changes: string[] = [];
    feed.watch((c) => changes.push(c.kind));
    feed.onEvent(event('e1', 'IssuedInvoice.Created', { record: { DocumentNumber: 'FA1' } }), [
      'archive-isdoc',
      'send-einvoice',
    ]);
    now = 1_250;
    feed.onDelivery({
      routeId: 'archive-isdoc',
      eventId: 'e1',
      detailType: 'IssuedInvoice.Created',
      attempt: 1,
      status: 'retrying',
      error: 'ISDOC not ready',
    });
    now = 2_500;
    feed.onEvent(
      event('o1', 'IssuedInvoice.IsdocArchived', {
        causationId: 'e1',
        action: 'archive.isdoc',
        archive: { key: 'isdoc/a.isdoc' },
      }),
      [],
    );
    feed.onDelivery({
      routeId: 'archive-isdoc',
      eventId: 'e1',
      detailType: 'IssuedInvoice.Created',
      attempt: 2,
      status: 'delivered',
    });
    const item = feed.event('e1');
    expect(item?.documentNumber).toBe('FA1');
    expect(item?.connection).toBe('sandbox');
    expect(item?.routes['archive-isdoc']).toMatchObject({
      status: 'delivered',
      attempts: 2,
      durationMs: 1_500,
      outcomeEvent: { id: 'o1', detailType: 'IssuedInvoice.IsdocArchived', note: 's3 isdoc/a.isdoc' },
    });
    expect(item?.routes['send-einvoice']).toEqual({ status: 'pending', attempts: 0 });
    expect(feed.attempts().map((a) => [a.attempt, a.status, a.durationMs])).toEqual([
      [1, 'retrying', 250],
      [2, 'delivered', 1_500],
    ]);
    expect(changes).toEqual(['event', 'outcome', 'event', 'outcome', 'outcome']);
    expect(feed.connections()).toEqual([
      expect.objectContaining({ name: 'sandbox', events: 2, minutes: [{ minute: 0, events: 2 }] }),
    ]);
  });

  it('keeps the latest events only, forgetting the ids of those it drops', () => {
    const feed = createConsoleFeed({ maxEvents: 2 });
    for (const id of ['a', 'b', 'c']) feed.onEvent(event(id, 'BusinessPartner.Created', {}), []);
    expect(feed.events().map((e) => e.event.id)).toEqual(['b', 'c']);
    expect(feed.event('a')).toBeUndefined();
  });

  it('counts a connection unhealthy with its reason, and its lag per minute', () => {
    const feed = createConsoleFeed({ now: () => 120_000 });
    feed.onUpdate({
      kind: 'poll',
      at: new Date(120_000),
      durationMs: 5,
      events: 0,
      connection: 'c1',
      lagMs: 900,
    });
    feed.onUpdate({
      kind: 'connection',
      connection: 'c1',
      state: 'unhealthy',
      reason: 'credentials refused',
    });
    expect(feed.connections()).toEqual([
      expect.objectContaining({
        name: 'c1',
        state: 'unhealthy',
        errors: 1,
        lastError: 'credentials refused',
        lagMs: 900,
        minutes: [{ minute: 2, events: 0, lagMs: 900 }],
      }),
    ]);
  });
});

describe('the console event filters', () => {
  const feed = createConsoleFeed();
  feed.onEvent(
    event(
      '1',
      'IssuedInvoice.Created',
      { record: { DocumentNumber: 'FA2026000001' }, connection: 'a' },
      '2026-01-31T10:00:00Z',
    ),
    [],
  );
  feed.onEvent(
    event(
      '2',
      'ReceivedOrder.Created',
      { record: { DocumentNumber: 'OP2026000001' }, connection: 'b' },
      '2026-01-31T11:00:00Z',
    ),
    [],
  );
  feed.onEvent(
    event(
      '3',
      'IssuedInvoice.IsdocArchived',
      { source: { documentNumber: 'FA2026000001' }, connection: 'a' },
      '2026-01-31T12:00:00Z',
    ),
    [],
  );
  const ids = (params: Record<string, string>) =>
    selectEvents(feed.events(), parseEventFilter(new URLSearchParams(params))).map((e) => e.event.id);

  it('filters by detail-type pattern, connection, document number and time, newest first', () => {
    expect(ids({})).toEqual(['3', '2', '1']);
    expect(ids({ type: 'IssuedInvoice.*' })).toEqual(['3', '1']);
    expect(ids({ type: 'ReceivedOrder.Created|IssuedInvoice.Created' })).toEqual(['2', '1']);
    expect(ids({ connection: 'b' })).toEqual(['2']);
    expect(ids({ doc: 'FA2026000001' })).toEqual(['3', '1']);
    expect(ids({ since: '2026-01-31T10:30:00Z', until: '2026-01-31T11:30:00.000Z' })).toEqual(['2']);
    expect(ids({ since: '2026-01-31T11:30:00+01:00' })).toEqual(['3', '2']);
    expect(ids({ until: '2026-01-31T12:30:00+01:00' })).toEqual(['2', '1']);
    expect(ids({ limit: '1' })).toEqual(['3']);
  });

  it('names the bad parameter and what it expected', () => {
    expect(() => parseEventFilter({ type: 'Nope.*' })).toThrow(/matches no detail-type/);
    expect(() => parseEventFilter({ since: 'yesterday' })).toThrow(/expected an ISO date-time/);
    expect(() => parseEventFilter({ limit: '0' })).toThrow(/limit/);
  });

  it('speaks the page’s words: the filters’ and forms’ labels, never a CLI flag', () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        if (error instanceof z.ZodError) return formatConsoleError(error);
      }
      throw new Error('expected a refusal');
    };
    expect(refused(() => parseEventFilter({ type: 'Nope.*' }))).toBe(
      'detail-type: "Nope.*" matches no detail-type of the event catalog',
    );
    expect(refused(() => parseEventFilter({ doc: 'x', since: 'yesterday' }))).toBe(
      'since: expected an ISO date-time, e.g. 2026-01-31T12:00:00Z',
    );
    const assign = refused(() =>
      assignBodySchema.parse({ connection: 'acme', id: 'x', target: { recordType: 'Nope', id: 'y' } }),
    );
    expect(assign).toMatch(/^invoice kind: /m);
    expect(assign).toMatch(/^invoice Id: /m);
    expect(assign).not.toContain('--');
  });
});

describe('the fields of an event’s detail, from its schema', () => {
  it('lists a record event’s fields although its schema is `anyOf` at the top (inline or claim-checked)', () => {
    const paths = fieldDocs('IssuedInvoice.Created').map((f) => f.path);
    for (const path of ['connection', 'recordType', 'id', 'change', 'modifiedDate', 'record', 'recordRef'])
      expect(paths).toContain(path);
    expect(paths.some((p) => p.startsWith('record.'))).toBe(true);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('names a nullable field’s types once each', () => {
    const doc = fieldDocs('IssuedInvoice.IsdocArchived').find((f) => f.path === 'source.documentNumber');
    expect(doc?.type).toBe('string | null');
  });
});

describe('an ISDOC read as an invoice', () => {
  const party = (name: string, id: string, vat: string) =>
    `<Party><PartyIdentification><ID>${id}</ID></PartyIdentification><PartyName><Name>${name}</Name></PartyName><PostalAddress><StreetName>Hlavná</StreetName><BuildingNumber>1</BuildingNumber><CityName>Nitra</CityName><PostalZone>94901</PostalZone><Country><IdentificationCode>SK</IdentificationCode></Country></PostalAddress>${vat ? `<PartyTaxScheme><CompanyID>${vat}</CompanyID><TaxScheme>VAT</TaxScheme></PartyTaxScheme>` : ''}</Party>`;
  const xml = `<?xml version="1.0" encoding="UTF-8"?><i:Invoice xmlns:i="http://isdoc.cz/namespace/2013" version="6.0.2"><i:DocumentType>1</i:DocumentType><i:ID>FA1</i:ID><i:IssueDate>2026-01-31</i:IssueDate><i:LocalCurrencyCode>EUR</i:LocalCurrencyCode>
<i:AccountingSupplierParty>${party('Dodávateľ s.r.o.', '123', 'SK2020123456').replace(/<(\/?)/g, '<$1i:')}</i:AccountingSupplierParty>
<i:AccountingCustomerParty>${party('Odberateľ a.s.', '456', '').replace(/<(\/?)/g, '<$1i:')}</i:AccountingCustomerParty>
<i:InvoiceLines><i:InvoiceLine><i:ID>1</i:ID><i:InvoicedQuantity unitCode="ks">2</i:InvoicedQuantity><i:LineExtensionAmount>20.00</i:LineExtensionAmount><i:LineExtensionAmountTaxInclusive>24.60</i:LineExtensionAmountTaxInclusive><i:UnitPrice>10.00</i:UnitPrice><i:ClassifiedTaxCategory><i:Percent>23</i:Percent></i:ClassifiedTaxCategory><i:Item><i:Description>Cement</i:Description></i:Item></i:InvoiceLine></i:InvoiceLines>
<i:TaxTotal><i:TaxSubTotal><i:TaxableAmount>20.00</i:TaxableAmount><i:TaxAmount>4.60</i:TaxAmount><i:TaxInclusiveAmount>24.60</i:TaxInclusiveAmount><i:TaxCategory><i:Percent>23</i:Percent></i:TaxCategory></i:TaxSubTotal><i:TaxAmount>4.60</i:TaxAmount></i:TaxTotal>
<i:LegalMonetaryTotal><i:TaxExclusiveAmount>20.00</i:TaxExclusiveAmount><i:TaxInclusiveAmount>24.60</i:TaxInclusiveAmount><i:PayableAmount>24.60</i:PayableAmount></i:LegalMonetaryTotal></i:Invoice>`;
  const schema = {
    name: 'ISDOC 6.0.2',
    validate: async () => ({ valid: false, errors: ['element X: not expected'] }),
  };

  it('shows parties, lines, VAT per rate, totals and the verdict, whatever the namespace prefix', async () => {
    const view = await readIsdocView(Buffer.from(xml), schema);
    expect(view).toMatchObject({
      id: 'FA1',
      version: '6.0.2',
      currency: 'EUR',
      supplier: {
        name: 'Dodávateľ s.r.o.',
        id: '123',
        vatId: 'SK2020123456',
        address: 'Hlavná 1, 94901 Nitra, SK',
      },
      customer: { name: 'Odberateľ a.s.', vatId: '' },
      lines: [
        {
          id: '1',
          description: 'Cement',
          quantity: '2',
          unit: 'ks',
          unitPrice: '10.00',
          vatPercent: '23',
          amount: '20.00',
          amountWithVat: '24.60',
        },
      ],
      vat: [{ percent: '23', taxable: '20.00', tax: '4.60', total: '24.60' }],
      totals: { withoutVat: '20.00', vat: '4.60', withVat: '24.60', payable: '24.60' },
      verdict: { schema: 'ISDOC 6.0.2', valid: false, errors: ['element X: not expected'] },
    });
  });

  it('refuses what is not an ISDOC invoice', async () => {
    await expect(readIsdocView(Buffer.from('<Order/>'), schema)).rejects.toThrow(IsdocViewError);
  });
});
