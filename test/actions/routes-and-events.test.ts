import { describe, expect, it } from 'vitest';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { actionOutcomeEntries } from '#functions/core/actions/registry.js';
import { einvoicingPolicy } from '#functions/core/actions/send-invoice/channel-policy.js';
import { matchesPattern } from '#functions/core/event-pattern.js';
import { actionFailedEntry } from '#functions/core/events/action-events.js';

const actionEvents = [...actionOutcomeEntries, actionFailedEntry];

import { buildRoutes, buildScheduledActions, routes } from '#functions/core/routes.js';
import { recordEvent } from './support.js';

const modificationInfo = { CreatedDate: '2026-03-01T08:00:00Z', ModifiedDate: '2026-03-01T08:00:00Z' };

describe('action settings', () => {
  it('defaults: main transfer chain and archive on, offers/issued orders and sending off', () => {
    const c = loadActionsConfig({});
    expect(c.transfers).toEqual({
      receivedOrderToIssuedInvoice: true,
      receivedOrderToIssueSlip: true,
      issueSlipToIssuedInvoice: true,
      issuedOfferToReceivedOrder: false,
      issuedOrderToReceivedInvoice: false,
    });
    expect(c.isdoc.enabled).toBe(true);
    expect(c.sending.einvoicePartners).toEqual([]);
  });

  it('routes the variant’s own transfer chain (cz: received order straight to an issued invoice)', () => {
    const cz = loadActionsConfig({ ACCOUNTING_SERVICE_VARIANT: 'cz' });
    expect(cz.variant).toBe('cz');
    const czTransfers = buildRoutes(cz).filter((r) => r.handler === 'transfer-documents');
    expect(czTransfers.map((r) => r.id)).toEqual(['transfer-received-order-to-invoice']);
    expect(czTransfers[0]?.description).toContain('ReceivedOrder');
    expect(czTransfers[0]?.description).toContain('IssuedInvoice');
    // Sending exists only in the Slovak contract: no route, no tracker in cz, even with partners set.
    const sending = { ACTIONS_EINVOICE_PARTNERS: '111', ACTIONS_EMAIL_PARTNERS: '222' };
    const czSending = loadActionsConfig({ ACCOUNTING_SERVICE_VARIANT: 'cz', ...sending });
    expect(buildRoutes(czSending).filter((r) => r.handler === 'send-invoice')).toEqual([]);
    expect(buildScheduledActions(czSending)).toEqual([]);
    expect(buildRoutes(loadActionsConfig(sending)).filter((r) => r.handler === 'send-invoice')).toHaveLength(
      2,
    );
    const sk = buildRoutes(loadActionsConfig({})).filter((r) => r.handler === 'transfer-documents');
    expect(sk.map((r) => r.id)).toEqual(['transfer-received-order', 'transfer-issue-slip']);
    expect(() => loadActionsConfig({ ACCOUNTING_SERVICE_VARIANT: 'de' })).toThrow(
      /ACCOUNTING_SERVICE_VARIANT: expected one of sk, cz/,
    );
  });

  it('names every malformed key at once', () => {
    expect(() => loadActionsConfig({ ACTIONS_ISDOC_PDF: 'maybe', ACTIONS_ISDOC_MAX_BYTES: '-1' })).toThrow(
      /ACTIONS_ISDOC_PDF: expected one of.*ACTIONS_ISDOC_MAX_BYTES: expected a positive integer/,
    );
  });

  it('rejects a partner configured for both channels and a bad e-mail address', () => {
    expect(() =>
      loadActionsConfig({ ACTIONS_EINVOICE_PARTNERS: '111', ACTIONS_EMAIL_PARTNERS: '111' }),
    ).toThrow(/partner '111' is configured for both/);
    expect(() => loadActionsConfig({ ACTIONS_EMAIL_PARTNERS: '222=nope' })).toThrow(/e-mail address/);
  });

  it('reads the connection from ACCOUNTING_CONNECTION, validated like the poller reads it', () => {
    expect(loadActionsConfig({}).connection).toBe('default');
    expect(loadActionsConfig({ ACCOUNTING_CONNECTION: 'acme' }).connection).toBe('acme');
    expect(() => loadActionsConfig({ ACCOUNTING_CONNECTION: 'a/b' })).toThrow(
      /ACCOUNTING_CONNECTION: expected lower-case letters/,
    );
  });
});

describe('routing table', () => {
  it('routes only unfinished received orders to the transfer handler by default', () => {
    const r = routes.find((x) => x.id === 'transfer-received-order');
    expect(r?.handler).toBe('transfer-documents');
    expect(r?.pattern).toEqual({
      source: ['accounting.default'],
      'detail-type': ['ReceivedOrder.Created', 'ReceivedOrder.Updated'],
      detail: { $or: [{ record: { Status: ['Unfinished'] } }, { recordRef: { key: [{ exists: true }] } }] },
    });
    expect(r?.outcomes).toEqual(['ReceivedOrder.Transferred', 'Action.Failed']);
    expect(routes.map((x) => x.id)).toEqual([
      'transfer-received-order',
      'transfer-issue-slip',
      'archive-isdoc',
      'send-einvoice',
      'send-einvoice-fixed',
      'liquidate-payments',
      'liquidate-shop-payment',
    ]);
  });

  it("routes the intake's EshopOrder.Paid to the shop payment action, which may publish its outcomes", () => {
    const built = buildRoutes(loadActionsConfig({}));
    const route = built.find((x) => x.id === 'liquidate-shop-payment');
    expect(route?.handler).toBe('liquidate-shop-payment');
    expect(route?.pattern).toEqual({ source: ['accounting.default'], 'detail-type': ['EshopOrder.Paid'] });
    expect(route?.outcomes).toEqual([
      'IssuedInvoice.ShopPaymentRecorded',
      'EshopOrder.PaymentUnmatched',
      'Action.Failed',
    ]);
    expect(
      built.filter((x) => x.pattern['detail-type']?.includes('EshopOrder.Paid')).map((x) => x.id),
    ).toEqual(['liquidate-shop-payment']);
  });

  it('e-invoices under the Slovak mandate by default: every new invoice reaches the sending, updates too', () => {
    const config = loadActionsConfig({});
    expect(einvoicingPolicy(config)).toBe('mandate-sk');
    expect(einvoicingPolicy(loadActionsConfig({ ACCOUNTING_SERVICE_VARIANT: 'cz' }))).toBe('lists');
    const built = buildRoutes(config);
    expect(built.find((x) => x.id === 'send-einvoice')?.pattern).toEqual({
      source: ['accounting.default'],
      'detail-type': ['IssuedInvoice.Created'],
    });
    expect(built.find((x) => x.id === 'send-einvoice-fixed')?.pattern).toEqual({
      source: ['accounting.default'],
      'detail-type': ['IssuedInvoice.Updated'],
    });
    expect(buildScheduledActions(config).map((s) => s.handler)).toEqual([
      'track-einvoices',
      'report-einvoicing-readiness',
    ]);
    const off = loadActionsConfig({ ACTIONS_EINVOICING: 'off' });
    expect(buildRoutes(off).map((x) => x.id)).not.toContain('send-einvoice');
    expect(buildScheduledActions(off)).toEqual([]);
    expect(() => loadActionsConfig({ ACTIONS_EINVOICING: 'mandate' })).toThrow(/ACTIONS_EINVOICING/);
  });

  it('switches each step by configuration and filters sending by configured partners', () => {
    const config = loadActionsConfig({
      ACTIONS_EINVOICING: 'lists',
      ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUE_SLIP: 'false',
      ACTIONS_TRANSFER_ISSUED_OFFER_TO_RECEIVED_ORDER: 'true',
      ACTIONS_ISDOC_ARCHIVE: 'off',
      ACTIONS_EINVOICE_PARTNERS: '12345678, 87654321',
      ACTIONS_EMAIL_PARTNERS: '55555555=billing@example.com',
    });
    const built = buildRoutes(config);
    expect(built.map((x) => x.id)).toEqual([
      'transfer-issue-slip',
      'transfer-issued-offer',
      'send-einvoice',
      'send-einvoice-fixed',
      'send-email',
      'liquidate-payments',
      'liquidate-shop-payment',
    ]);
    expect(built.find((x) => x.id === 'send-einvoice')?.pattern.detail).toEqual({
      $or: [
        { record: { BusinessPartnerAddress: { IdentificationNumber: ['12345678', '87654321'] } } },
        { recordRef: { key: [{ exists: true }] } },
      ],
    });
    for (const route of built) expect(route.pattern.source).toEqual(['accounting.default']);
    expect(buildScheduledActions(config).map((s) => s.handler)).toEqual([
      'track-einvoices',
      'report-einvoicing-readiness',
    ]);
    expect(buildScheduledActions(loadActionsConfig({ ACTIONS_EINVOICING: 'lists' }))).toEqual([]);
  });
});

describe('routing table with the event-pattern matcher', () => {
  const config = loadActionsConfig({
    ACCOUNTING_CONNECTION: 'acme',
    ACTIONS_EINVOICING: 'lists',
    ACTIONS_EINVOICE_PARTNERS: '12345678',
    ACTIONS_EMAIL_PARTNERS: '55555555',
  });
  const byId = new Map(buildRoutes(config).map((r) => [r.id, r]));
  const matching = (event: { source: string; 'detail-type': string; detail: unknown }) =>
    [...byId.values()].filter((r) => matchesPattern(r.pattern, event)).map((r) => r.id);
  const order = (Status: string) => ({ Id: 'o-1', Status, ModificationInfo: modificationInfo });
  const invoice = (IdentificationNumber: string | null) => ({
    Id: 'i-1',
    DocumentNumber: 'FV1',
    BusinessPartnerAddress: { IdentificationNumber },
    ModificationInfo: modificationInfo,
  });

  it('sends unfinished orders to the transfer and nothing else', () => {
    expect(matching(recordEvent('ReceivedOrder', order('Unfinished')))).toEqual(['transfer-received-order']);
    expect(matching(recordEvent('ReceivedOrder', order('Unfinished'), { change: 'Updated' }))).toEqual([
      'transfer-received-order',
    ]);
    expect(matching(recordEvent('ReceivedOrder', order('Finished')))).toEqual([]);
    expect(matching(recordEvent('IssueSlip', order('Unfinished')))).toEqual(['transfer-issue-slip']);
  });

  it('matches nothing from a foreign source', () => {
    const foreign = { ...recordEvent('ReceivedOrder', order('Unfinished')), source: 'anything.at.all' };
    expect(matching(foreign)).toEqual([]);
  });

  it('lets a claim-checked event (record by reference) reach the transfer and send routes', () => {
    const byRef = (recordType: string, change = 'Created') => {
      const e = recordEvent(recordType, order('Unfinished'), { change: change as 'Created' });
      const { record: _record, ...detail } = e.detail as Record<string, unknown>;
      return {
        ...e,
        detail: { ...detail, recordRef: { key: 'claims/x.json', sha256: '0'.repeat(64), size: 2 } },
      };
    };
    expect(matching(byRef('ReceivedOrder'))).toEqual(['transfer-received-order']);
    expect(matching(byRef('IssuedInvoice'))).toEqual(['archive-isdoc', 'send-einvoice', 'send-email']);
    expect(matching(byRef('IssuedInvoice', 'Updated'))).toEqual(['archive-isdoc', 'send-einvoice-fixed']);
  });

  it('sends new invoices of configured partners to their channel, and every invoice version to the archive', () => {
    expect(matching(recordEvent('IssuedInvoice', invoice('12345678')))).toEqual([
      'archive-isdoc',
      'send-einvoice',
    ]);
    expect(matching(recordEvent('IssuedInvoice', invoice('55555555')))).toEqual([
      'archive-isdoc',
      'send-email',
    ]);
    expect(matching(recordEvent('IssuedInvoice', invoice('99999999')))).toEqual(['archive-isdoc']);
    expect(matching(recordEvent('IssuedInvoice', invoice('12345678'), { change: 'Updated' }))).toEqual([
      'archive-isdoc',
      'send-einvoice-fixed',
    ]);
    expect(matching(recordEvent('IssuedInvoice', invoice('55555555'), { change: 'Updated' }))).toEqual([
      'archive-isdoc',
    ]);
    expect(matching(recordEvent('IssuedAdvanceInvoice', invoice(null)))).toEqual(['archive-isdoc']);
  });
});

describe('action event catalog', () => {
  it('every example parses with its schema', () => {
    for (const entry of actionEvents) {
      const result = entry.schema.safeParse(entry.example);
      expect(result.success, entry.detailType).toBe(true);
    }
    expect(actionEvents.map((e) => e.detailType)).toEqual([
      'ReceivedOrder.Transferred',
      'IssueSlip.Transferred',
      'IssuedOffer.Transferred',
      'IssuedOrder.Transferred',
      'IssuedInvoice.IsdocArchived',
      'IssuedAdvanceInvoice.IsdocArchived',
      'IssuedInvoice.EmailSent',
      'IssuedInvoice.SendingHeld',
      'IssuedInvoice.SendingReleased',
      'IssuedInvoice.EInvoiceBlocked',
      'IssuedInvoice.EInvoiceStatusChanged',
      'EInvoicing.ReadinessReported',
      'IssuedInvoice.PaymentReminderSent',
      'IssuedAdvanceInvoice.PaymentReminderSent',
      'IssuedInvoice.PaymentRecorded',
      'IssuedAdvanceInvoice.PaymentRecorded',
      'BankTransaction.Unmatched',
      'IssuedInvoice.ShopPaymentRecorded',
      'EshopOrder.PaymentUnmatched',
      'Action.Failed',
    ]);
  });
});
