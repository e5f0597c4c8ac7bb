/**
 * A scheduled action (the e-invoice status tracker) for every connection of the registry: one pass
 * per registered, unpaused connection whose settings schedule it, each with its own client; a
 * failing connection does not stop the others, and the run then fails naming it.
 */
import { describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import { actionPorts } from '#functions/core/actions/action-definition.js';
import { type OpenSendings, sendingKey } from '#functions/core/actions/open-sendings.js';
import type { IdempotencyGuard } from '#functions/core/actions/ports.js';
import { trackEInvoicesAction } from '#functions/core/actions/track-einvoices/action.js';
import {
  ConnectionPassesFailedError,
  scheduledForEachConnection,
} from '#functions/core/connection-actions.js';
import {
  type ConnectionEntryInput,
  parseConnectionEntry,
} from '#functions/core/connections/connection-entry.js';
import { createManualClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { rawAnswersApi } from '../fakes/raw-answers.js';
import { memoryRegistry } from './support.js';

const entry = (name: string, more: Partial<ConnectionEntryInput> = {}) =>
  parseConnectionEntry({
    name,
    baseUrl: 'https://api.example.sk',
    credentialsSecret: `env:${name.toUpperCase().replaceAll('-', '_')}_CREDENTIALS`,
    ...more,
  });

const openSending = (connection: string) => ({
  sendingId: `51000000-0000-4000-8000-00000000000${connection.length}`,
  connection,
  eventSource: `accounting.${connection}`,
  source: {
    recordType: 'IssuedInvoice',
    id: '1f000000-0000-4000-8000-000000000001',
    documentNumber: `FV-${connection}`,
    modifiedDate: '2026-03-01T08:00:00Z',
  },
  causationId: `e-${connection}`,
  sentAt: '2026-03-01T08:00:00.000Z',
  deadline: '2099-03-08T08:00:00.000Z',
  emitted: 0,
  lastStatus: null,
  lastCode: null,
  isdocDate: '2026-03-01',
});

describe('a scheduled action for every connection', () => {
  it("tracks each scheduled connection's sendings with its own client; paused and unscheduled ones not", async () => {
    const clock = createManualClock({ start: '2026-03-02T10:00:00Z' });
    const registry = memoryRegistry([
      entry('alpha'),
      entry('beta'),
      entry('gamma', { paused: true }),
      entry('delta', { actions: { ACTIONS_EINVOICING: 'off' } }),
      entry('omega'),
    ]);
    const sendings = createMemoryCheckpointStore<OpenSendings>();
    for (const c of ['alpha', 'beta', 'gamma', 'delta', 'omega']) {
      await sendings.put(sendingKey(c, openSending(c).source.id), { sendings: [openSending(c)] }, undefined);
    }
    const asked: string[] = [];
    const apiOf = (connection: string): AccountingApi =>
      rawAnswersApi(async () => {
        asked.push(connection);
        if (connection === 'omega') throw new Error('service unreachable');
        return { Status: 'Delivered', ResponseCode: 'AP' };
      });
    const publisher = recordingPublisher();
    const logger = recordingLogger();
    const stores = {
      idempotency: {} as IdempotencyGuard,
      actionState: sendings,
      archive: createMemoryObjectStore(),
      sendingRecords: createMemoryObjectStore(),
      reports: createMemoryObjectStore(),
    };

    const run = scheduledForEachConnection(trackEInvoicesAction, {
      registry,
      env: { ACTIONS_EINVOICE_PARTNERS: '12345678' },
      logger,
      portsFor: async (e, config) =>
        actionPorts({ config, api: apiOf(e.name), publisher, clock, logger }, stores),
    });

    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionPassesFailedError);
    expect((error as ConnectionPassesFailedError).connections).toEqual(['omega']);
    expect(asked).toEqual(['alpha', 'beta', 'omega']);
    const changes = publisher.ofType('IssuedInvoice.EInvoiceStatusChanged');
    expect(changes.map((e) => [e.source, (e.detail as { connection: string }).connection])).toEqual([
      ['accounting.alpha', 'alpha'],
      ['accounting.beta', 'beta'],
    ]);
    // Untouched: the paused one, the one that sends no e-invoices, and the one that failed.
    for (const c of ['gamma', 'delta', 'omega']) {
      expect((await sendings.get(sendingKey(c, openSending(c).source.id)))?.value.sendings, c).toHaveLength(
        1,
      );
    }
    expect(logger.lines.filter((l) => l.message === 'scheduled action failed for connection')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ connection: 'omega' }) }),
    ]);
  });
});
