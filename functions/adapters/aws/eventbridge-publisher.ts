/**
 * `EventPublisher` on an EventBridge bus. Events go out in `PutEvents` requests of at most
 * 10 entries whose summed size stays within the request limit (size computed as EventBridge
 * does). Entries the bus rejects with a transient code (throttling, internal failure) are
 * resent alone with exponential backoff and full jitter on the injected clock; a permanent
 * rejection, an oversized entry or running out of attempts throws `PublishError`, so callers
 * never checkpoint past events the bus did not accept. Up to `maxConcurrentRequests` requests
 * are in flight at once (EventBridge keeps no order between requests anyway); after a failure
 * no further batch is started.
 */
import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import * as z from 'zod';
import { PublishError } from '#functions/core/errors.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '#functions/core/ports.js';

/** EventBridge's limits (the event size limit rose from 256 KB to 1 MB in 2026; keep it a setting). */
export const PUT_EVENTS_MAX_ENTRIES = 10;
export const DEFAULT_MAX_ENTRY_SIZE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_REQUEST_SIZE_BYTES = 1024 * 1024;

/** Per-entry error codes worth resending; any other code is permanent (validation, access, size). */
const TRANSIENT_ENTRY_CODES = new Set([
  'ThrottlingException',
  'InternalFailure',
  'InternalException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
]);

const optionsSchema = z.object({
  busName: z.string().min(1, 'expected the event bus name or ARN'),
  maxEntrySizeBytes: z.number().int().positive().default(DEFAULT_MAX_ENTRY_SIZE_BYTES),
  maxRequestSizeBytes: z.number().int().positive().default(DEFAULT_MAX_REQUEST_SIZE_BYTES),
  maxAttempts: z.number().int().min(1, 'expected at least 1 attempt'),
  baseDelayMs: z.number().nonnegative().default(100),
  maxDelayMs: z.number().nonnegative().default(5_000),
  maxConcurrentRequests: z.number().int().min(1, 'expected at least 1 request').default(4),
});

export interface EventBridgePublisherOptions {
  client: EventBridgeClient;
  busName: string;
  /** Largest single entry; default 1 MiB. */
  maxEntrySizeBytes?: number;
  /** Largest `PutEvents` request (sum of entry sizes); default 1 MiB. */
  maxRequestSizeBytes?: number;
  clock: Clock;
  logger: Logger;
  /** Attempts per entry, the first send included. */
  maxAttempts: number;
  /** First backoff ceiling; doubles per attempt up to `maxDelayMs`. Default 100 ms. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** `PutEvents` requests in flight at once within one `publish`; default 4 (1 keeps batch order). */
  maxConcurrentRequests?: number;
  /** Source of jitter in [0, 1); default `Math.random`. */
  random?: () => number;
}

/**
 * Size of one entry as EventBridge counts it: UTF-8 bytes of Source, DetailType, Detail and
 * each Resource, plus 14 bytes when Time is set.
 */
export function entrySize(entry: PutEventsRequestEntry): number {
  let size = entry.Time !== undefined ? 14 : 0;
  for (const text of [entry.Source, entry.DetailType, entry.Detail, ...(entry.Resources ?? [])]) {
    if (text !== undefined) size += Buffer.byteLength(text, 'utf8');
  }
  return size;
}

export function toPutEventsEntry(event: BusEvent, busName: string): PutEventsRequestEntry {
  return {
    EventBusName: busName,
    Source: event.source,
    DetailType: event.detailType,
    Detail: JSON.stringify(event.detail),
    ...(event.time !== undefined ? { Time: event.time } : {}),
    ...(event.resources !== undefined && event.resources.length > 0 ? { Resources: event.resources } : {}),
  };
}

/** Splits entries into requests of ≤ 10 entries and ≤ `maxRequestBytes`, keeping their order. */
export function planBatches(
  entries: readonly PutEventsRequestEntry[],
  maxRequestBytes: number,
): PutEventsRequestEntry[][] {
  const batches: PutEventsRequestEntry[][] = [];
  let current: PutEventsRequestEntry[] = [];
  let currentSize = 0;
  for (const entry of entries) {
    const size = entrySize(entry);
    if (
      current.length > 0 &&
      (current.length >= PUT_EVENTS_MAX_ENTRIES || currentSize + size > maxRequestBytes)
    ) {
      batches.push(current);
      current = [];
      currentSize = 0;
    }
    current.push(entry);
    currentSize += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function isTransientRequestError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  if (e.$retryable !== undefined) return true;
  if (e.name === 'ThrottlingException' || e.name === 'InternalException') return true;
  const status = e.$metadata?.httpStatusCode;
  return status === 429 || (status !== undefined && status >= 500);
}

type Settings = z.output<typeof optionsSchema>;

/** What every request of one publisher shares. */
interface Sender {
  readonly client: EventBridgeClient;
  readonly settings: Settings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random: () => number;
}

interface Rejected {
  entry: PutEventsRequestEntry;
  code: string;
  message: string | undefined;
}

const backoff = (s: Sender, attempt: number): number =>
  Math.floor(s.random() * Math.min(s.settings.maxDelayMs, s.settings.baseDelayMs * 2 ** (attempt - 1)));

/** A request that failed as a whole: throws `PublishError` unless it is worth another attempt. */
async function afterRequestFailure(
  s: Sender,
  error: unknown,
  pending: number,
  attempt: number,
): Promise<void> {
  if (!isTransientRequestError(error) || attempt >= s.settings.maxAttempts) {
    throw new PublishError(
      `PutEvents failed after ${attempt} attempt(s): ${(error as Error).name ?? 'Error'}`,
      pending,
      { cause: error },
    );
  }
  const delayMs = backoff(s, attempt);
  s.logger.warn('PutEvents request failed, retrying', {
    entries: pending,
    attempt,
    delayMs,
    errorName: (error as Error).name,
  });
  await s.clock.sleep(delayMs);
}

/** The entries the bus did not accept. Results are positional: result i belongs to entry i. */
function rejectedEntries(
  pending: readonly PutEventsRequestEntry[],
  results: PutEventsResultEntry[],
): Rejected[] {
  const failed: Rejected[] = [];
  pending.forEach((entry, i) => {
    const result = results[i];
    if (result === undefined || result.ErrorCode !== undefined || result.EventId === undefined) {
      failed.push({ entry, code: result?.ErrorCode ?? 'MissingResult', message: result?.ErrorMessage });
    }
  });
  return failed;
}

/** Rejected entries: throws `PublishError` on a permanent code or the last attempt, else waits to resend them. */
async function afterRejections(
  s: Sender,
  failed: Rejected[],
  pending: number,
  attempt: number,
): Promise<void> {
  const codes = [...new Set(failed.map((f) => f.code))];
  const permanent = failed.filter((f) => !TRANSIENT_ENTRY_CODES.has(f.code) && f.code !== 'MissingResult');
  if (permanent.length > 0 || attempt >= s.settings.maxAttempts) {
    const first = permanent[0] ?? failed[0];
    s.logger.error('events rejected by the bus', { failed: failed.length, attempt, errorCodes: codes });
    throw new PublishError(
      `${failed.length} event(s) not accepted by the bus after ${attempt} attempt(s): ${first?.code}${
        first?.message ? ` (${first.message})` : ''
      }`,
      failed.length,
    );
  }
  const delayMs = backoff(s, attempt);
  s.logger.warn('events rejected by the bus, resending', {
    failed: failed.length,
    accepted: pending - failed.length,
    attempt,
    delayMs,
    errorCodes: codes,
  });
  await s.clock.sleep(delayMs);
}

/** Sends one batch until every entry is accepted; throws PublishError otherwise. */
async function sendBatch(s: Sender, batch: PutEventsRequestEntry[]): Promise<void> {
  let pending = batch;
  for (let attempt = 1; ; attempt += 1) {
    let results: PutEventsResultEntry[];
    try {
      const out = await s.client.send(new PutEventsCommand({ Entries: pending }));
      results = out.Entries ?? [];
      if ((out.FailedEntryCount ?? 0) === 0 && results.every((r) => r.ErrorCode === undefined)) return;
    } catch (error) {
      await afterRequestFailure(s, error, pending.length, attempt);
      continue;
    }
    const failed = rejectedEntries(pending, results);
    if (failed.length === 0) return;
    await afterRejections(s, failed, pending.length, attempt);
    pending = failed.map((f) => f.entry);
  }
}

/**
 * Sends the batches, up to `maxConcurrentRequests` at once; after a failure no further batch is
 * started, and the batches never sent count as failed too.
 */
async function sendBatches(s: Sender, batches: PutEventsRequestEntry[][]): Promise<void> {
  const queue = [...batches];
  let firstError: PublishError | undefined;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (firstError === undefined) {
      const batch = queue.shift();
      if (batch === undefined) return;
      try {
        await sendBatch(s, batch);
      } catch (error) {
        const publishError =
          error instanceof PublishError
            ? error
            : new PublishError('PutEvents failed', batch.length, { cause: error });
        firstError ??= publishError;
        failed += publishError.failed;
      }
    }
  };
  const workers = Math.min(s.settings.maxConcurrentRequests, batches.length);
  await Promise.all(Array.from({ length: workers }, worker));
  if (firstError !== undefined) {
    // Batches never sent count as failed too: nothing after the first failure may be checkpointed.
    const unsent = queue.reduce((sum, batch) => sum + batch.length, 0);
    throw new PublishError(firstError.message, failed + unsent, { cause: firstError.cause ?? firstError });
  }
}

export function createEventBridgePublisher(options: EventBridgePublisherOptions): EventPublisher {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new TypeError(`invalid EventBridge publisher options: ${z.prettifyError(parsed.error)}`);
  }
  const settings = parsed.data;
  const s: Sender = { ...options, settings, random: options.random ?? Math.random };
  return {
    async publish(events: readonly BusEvent[]): Promise<void> {
      if (events.length === 0) return;
      const entries = events.map((event) => toPutEventsEntry(event, settings.busName));
      const oversized = entries.filter((entry) => entrySize(entry) > settings.maxEntrySizeBytes);
      if (oversized.length > 0) {
        throw new PublishError(
          `${oversized.length} event(s) exceed the entry size limit of ${settings.maxEntrySizeBytes} bytes (first: ${oversized[0]?.DetailType}, ${entrySize(oversized[0] as PutEventsRequestEntry)} bytes)`,
          oversized.length,
        );
      }
      const batches = planBatches(entries, Math.min(settings.maxRequestSizeBytes, Number.MAX_SAFE_INTEGER));
      await sendBatches(s, batches);
      s.logger.debug('events published', { count: entries.length, requests: batches.length });
    },
  };
}
