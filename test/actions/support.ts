/**
 * Test support for the actions: the sandbox with a client, a recording publisher and logger,
 * and EventBridge events built from sandbox records the way the poller builds them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { type AccountingClient, createAccountingClient } from '#functions/accounting/client.js';
import { parseAccountingConfig } from '#functions/accounting/config.js';
import { idempotencyKey } from '#functions/core/events/envelope.js';
import type { BusEvent, EventPublisher, Logger } from '#functions/core/ports.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '#sandbox/index.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { recordEventFixture } from '../support/event-fixtures.js';

export const CONNECTION = 'acme';
export const SOURCE = 'accounting.acme';

export interface RecordingPublisher extends EventPublisher {
  events: BusEvent[];
  ofType(detailType: string): BusEvent[];
}

export function recordingPublisher(): RecordingPublisher {
  const events: BusEvent[] = [];
  return {
    events,
    async publish(batch) {
      events.push(...batch);
    },
    ofType: (detailType) => events.filter((e) => e.detailType === detailType),
  };
}

export interface LogLine {
  level: string;
  message: string;
  data?: Record<string, unknown>;
}

export interface RecordingLogger extends Logger {
  lines: LogLine[];
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (message: string, data?: Record<string, unknown>): void => {
      lines.push({ level, message, ...(data ? { data } : {}) });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface SandboxClient {
  sandbox: Sandbox;
  client: AccountingClient;
  close(): Promise<void>;
}

export async function startSandboxClient(options: Partial<SandboxOptions> = {}): Promise<SandboxClient> {
  const sandbox = await startSandbox({
    sizes: { documents: 60, partners: 10, perCollection: {} },
    ...options,
  });
  const client = createAccountingClient(
    parseAccountingConfig({
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.credentials.apiKey,
      maxAttempts: 2,
      ...(options.variant ? { variant: options.variant } : {}),
    }),
  );
  return {
    sandbox,
    client,
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

export interface ActionTestBed {
  servers: TestServers;
  sb: SandboxClient;
}

/**
 * The embedded DynamoDB + S3 and the sandbox with a client, started before the file's tests and
 * closed after them; the returned object holds both once started.
 */
export function useActionTestBed(options: Partial<SandboxOptions>): ActionTestBed {
  const bed = {} as ActionTestBed;
  beforeAll(async () => {
    [bed.servers, bed.sb] = await Promise.all([startTestServers(), startSandboxClient(options)]);
  });
  afterAll(async () => {
    await Promise.all([bed.servers?.close(), bed.sb?.close()]);
  });
  return bed;
}

/** An EventBridge event for one record version, as the poller publishes it (the fixture's envelope). */
export function recordEvent(
  recordType: string,
  record: ApiRecord,
  options: { change?: 'Created' | 'Updated'; eventId?: string; time?: Date } = {},
) {
  const change = options.change ?? 'Created';
  const modifiedDate = record.ModificationInfo?.ModifiedDate ?? null;
  return {
    ...recordEventFixture(),
    id: options.eventId ?? randomUUID(),
    'detail-type': `${recordType}.${change}`,
    source: SOURCE,
    time: (options.time ?? new Date()).toISOString(),
    detail: {
      version: 1,
      connection: CONNECTION,
      recordType,
      id: record.Id,
      change,
      modifiedDate,
      idempotencyKey: idempotencyKey(CONNECTION, recordType, record.Id, modifiedDate ?? 'none'),
      record,
    },
  };
}

/** Items of a sandbox collection read through the client. */
export async function listAll(
  client: AccountingClient,
  collection: Parameters<AccountingClient['listItems']>[0],
) {
  const out: ApiRecord[] = [];
  for await (const item of client.listItems(collection)) out.push(item);
  return out;
}
