/**
 * The Czech chain (received order → issued invoice) against the sandbox in `cz` mode: an unknown
 * outcome is recovered through the real item link (`IssuedInvoiceItemDto.ReceivedOrderItemId`).
 */
import { describe, expect, it } from 'vitest';
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { OutcomeUnknownError } from '#functions/accounting/errors.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { systemClock } from '#functions/shared/clock.js';
import {
  listAll,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  useActionTestBed,
} from '#test/actions/support.js';
import { loadActionsConfig } from '../actions-config.js';
import { createActionEntry } from '../run-action.js';
import { linksToSource, sourceLinks, transferDocument } from './transfer-document.js';

const bed = useActionTestBed({
  variant: 'cz',
  sizes: { documents: 40, partners: 8, perCollection: { ReceivedOrders: 6 } },
});

describe('transfer action, cz variant (sandbox in cz mode)', () => {
  it('recovers an order → invoice transfer with an unknown outcome through the item links', async () => {
    const tableName = await bed.servers.idempotencyTable();
    const guard = createPowertoolsGuard({
      client: bed.servers.dynamoDb,
      tableName,
      expiresAfterSeconds: 3600,
    });
    const api: AccountingApi = Object.create(bed.sb.client) as AccountingApi;
    api.create = async (operationId, input) => {
      await bed.sb.client.create(operationId, input);
      throw new OutcomeUnknownError({ method: 'POST', path: '/v1/…' }, operationId, {
        cause: new Error('socket hang up'),
      });
    };
    const publisher = recordingPublisher();
    const logger = recordingLogger();
    const config = loadActionsConfig({ ACCOUNTING_SERVICE_VARIANT: 'cz' });
    const deps = { api, publisher, clock: systemClock, logger, guard, config };
    const entry = createActionEntry('transfer', logger, (event, opts) => transferDocument(deps, event, opts));

    const picked = (await listAll(bed.sb.client, 'ReceivedOrders'))[0] as ApiRecord;
    bed.sb.sandbox.state.update('ReceivedOrders', picked.Id, (r) => {
      r.Status = 'Unfinished';
    });
    const order = await bed.sb.client.get('ReceivedOrders', picked.Id);

    expect((await entry(recordEvent('ReceivedOrder', order))).status).toBe('done');
    const detail = publisher.ofType('ReceivedOrder.Transferred')[0]?.detail as {
      recovered: boolean;
      target: { recordType: string; id: string };
    };
    expect(detail).toMatchObject({ recovered: true, target: { recordType: 'IssuedInvoice' } });
    const invoice = await bed.sb.client.get('IssuedInvoices', detail.target.id);
    expect(invoice).not.toHaveProperty('SourceDocuments');
    expect(linksToSource(invoice, sourceLinks(order))).toBe(true);
    const invoices = (await listAll(bed.sb.client, 'IssuedInvoices')).filter((i) =>
      linksToSource(i, sourceLinks(order)),
    );
    expect(invoices).toHaveLength(1);
  });
});
