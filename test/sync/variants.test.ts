/**
 * The poller meets the service variants: a list the service does not have (404) is reported once
 * and skipped for the rest of the run (the deployed poller's container) while the others go on; the Czech reference lists, which carry
 * `ModificationInfo` (ModifiedDate only on general lists), are read by ModifiedSince, not re-scanned.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRecord, ListOptions } from '#functions/accounting/api.js';
import type { CollectionName } from '#functions/accounting/collections.js';
import { apiErrorFor } from '#functions/accounting/errors.js';
import type { Logger } from '#functions/core/ports.js';
import { loadPollerSettings } from '#functions/wiring/poller-config.js';
import { deployedPoller, recordingMetrics } from './deployed-poller.js';
import { setup } from './harness.js';

function recordingLogger() {
  const lines: { level: string; message: string; data?: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (message: string, data?: Record<string, unknown>): void => {
      lines.push({ level, message, ...(data ? { data } : {}) });
    };
  const logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  } as unknown as Logger;
  return { logger, lines };
}

describe('poller and service variants', () => {
  it('reports a 404 collection once (warning and metric), skips it for the rest of the run, polls the others', async () => {
    const t = setup();
    t.service.create();
    t.service.failures.set('IssuedCreditNotes', () =>
      apiErrorFor({ method: 'GET', path: '/v1/IssuedCreditNotes' }, 404, { title: 'Not Found' }),
    );
    const { logger, lines } = recordingLogger();
    const { metrics, points: counts } = recordingMetrics();
    const { handler } = deployedPoller(
      t,
      {
        ACCOUNTING_CONNECTION: 'acme',
        POLLER_COLLECTIONS: 'IssuedCreditNotes,ReceivedOrders',
        POLLER_RECONCILE_INTERVAL_SECONDS: '0',
      },
      { logger, metrics },
    );

    const first = await handler({});
    expect(first.outcomes).toMatchObject([
      {
        connection: 'acme',
        status: 'polled',
        failedCollections: 0,
        published: 1,
        healthy: true,
        unavailable: ['IssuedCreditNotes'],
      },
    ]);
    const requestsAfterFirst = t.service.requests;

    t.tick(60_000);
    t.service.create();
    const second = await handler({});
    expect(second.outcomes).toMatchObject([{ status: 'polled', failedCollections: 0, published: 1 }]);
    expect(second.outcomes[0]?.unavailable).toBeUndefined();
    // Only ReceivedOrders was read again.
    expect(t.service.requests - requestsAfterFirst).toBe(1);

    const warnings = lines.filter((l) => l.message === 'collection not served, skipped for this run');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.data).toMatchObject({ collection: 'IssuedCreditNotes', status: 404 });
    expect(counts.filter((c) => c.name === 'CollectionUnavailable')).toEqual([
      { name: 'CollectionUnavailable', value: 1, dimensions: { collection: 'IssuedCreditNotes' } },
    ]);
    expect(counts.filter((c) => c.name === 'CollectionsUnavailable').map((c) => c.value)).toEqual([1, 0]);
    expect(counts.filter((c) => c.name === 'CollectionsFailed').map((c) => c.value)).toEqual([0, 0]);
  });

  it('reads a Czech reference list by ModifiedSince; ModifiedDate-only records are accepted', async () => {
    const t = setup({ poll: { variant: 'cz' } });
    const listed: (string | undefined)[] = [];
    const api = t.service.api();
    const deps = {
      ...t.deps,
      api: {
        ...api,
        listPages: <T extends ApiRecord>(c: CollectionName, o?: ListOptions) => {
          listed.push(o?.modifiedSince);
          return api.listPages<T>(c, o);
        },
      },
    };
    const a = t.service.create();
    const stored = t.service.records.get(a)!;
    stored.record.ModificationInfo = { ModifiedDate: stored.record.ModificationInfo!.ModifiedDate };
    const first = await t.poll('Regions', deps);
    expect(first).toMatchObject({ status: 'ok', published: 1, events: { 'Region.Created': 1 } });
    t.tick(60_000);
    t.service.edit(a);
    const second = await t.poll('Regions', deps);
    expect(second).toMatchObject({ status: 'ok', published: 1, events: { 'Region.Updated': 1 } });
    // The second read asked only for what changed since the watermark (minus the lookback).
    expect(listed[0]).toBeUndefined();
    expect(listed[1]).toBeDefined();
    expect(t.publisher.details().map((d) => d.modifiedDate)).toEqual(
      t.publisher
        .details()
        .map((d) => (d.record?.ModificationInfo as { ModifiedDate?: string } | undefined)?.ModifiedDate),
    );
  });

  it('takes the poll set and its check from the configured variant', () => {
    const cz = loadPollerSettings({ ACCOUNTING_SERVICE_VARIANT: 'cz' });
    expect(cz.options.variant).toBe('cz');
    expect(cz.collections).toContain('IssuedInvoiceCorrectiveTaxDocuments');
    expect(cz.collections).not.toContain('IssuedCreditNotes');
    expect(() =>
      loadPollerSettings({ ACCOUNTING_SERVICE_VARIANT: 'cz', POLLER_COLLECTIONS: 'IssuedTaxDocuments' }),
    ).toThrow(/IssuedTaxDocuments not in service variant cz/);
    expect(loadPollerSettings({}).collections).toContain('IssuedCreditNotes');
  });
});
