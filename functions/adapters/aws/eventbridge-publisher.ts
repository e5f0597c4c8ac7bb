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
import { PublishError } from '../../core/errors.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../../core/ports.js';

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

export function createEventBridgePublisher(options: EventBridgePublisherOptions): EventPublisher {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new TypeError(`invalid EventBridge publisher options: ${z.prettifyError(parsed.error)}`);
  }
  const settings = parsed.data;
  const { client, clock, logger } = options;
  const random = options.random ?? Math.random;

  const backoff = (attempt: number): number => {
    const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(random() * ceiling);
  };

  /** Sends one batch until every entry is accepted; throws PublishError otherwise. */
  async function sendBatch(batch: PutEventsRequestEntry[]): Promise<void> {
    let pending = batch;
    for (let attempt = 1; ; attempt += 1) {
      let results: PutEventsResultEntry[];
      try {
        const out = await client.send(new PutEventsCommand({ Entries: pending }));
        results = out.Entries ?? [];
        if ((out.FailedEntryCount ?? 0) === 0 && results.every((r) => r.ErrorCode === undefined)) return;
      } catch (error) {
        if (!isTransientRequestError(error) || attempt >= settings.maxAttempts) {
          throw new PublishError(
            `PutEvents failed after ${attempt} attempt(s): ${(error as Error).name ?? 'Error'}`,
            pending.length,
            { cause: error },
          );
        }
        const delayMs = backoff(attempt);
        logger.warn('PutEvents request failed, retrying', {
          entries: pending.length,
          attempt,
          delayMs,
          errorName: (error as Error).name,
        });
        await clock.sleep(delayMs);
        continue;
      }

      // Results are positional: result i belongs to entry i of the request.
      const failed: { entry: PutEventsRequestEntry; code: string; message: string | undefined }[] = [];
      pending.forEach((entry, i) => {
        const result = results[i];
        if (result === undefined || result.ErrorCode !== undefined || result.EventId === undefined) {
          failed.push({ entry, code: result?.ErrorCode ?? 'MissingResult', message: result?.ErrorMessage });
        }
      });
      if (failed.length === 0) return;
      const codes = [...new Set(failed.map((f) => f.code))];
      const permanent = failed.filter(
        (f) => !TRANSIENT_ENTRY_CODES.has(f.code) && f.code !== 'MissingResult',
      );
      if (permanent.length > 0 || attempt >= settings.maxAttempts) {
        const first = permanent[0] ?? failed[0];
        logger.error('events rejected by the bus', { failed: failed.length, attempt, errorCodes: codes });
        throw new PublishError(
          `${failed.length} event(s) not accepted by the bus after ${attempt} attempt(s): ${first?.code}${
            first?.message ? ` (${first.message})` : ''
          }`,
          failed.length,
        );
      }
      const delayMs = backoff(attempt);
      logger.warn('events rejected by the bus, resending', {
        failed: failed.length,
        accepted: pending.length - failed.length,
        attempt,
        delayMs,
        errorCodes: codes,
      });
      pending = failed.map((f) => f.entry);
      await clock.sleep(delayMs);
    }
  }

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
      const queue = [...batches];
      let firstError: PublishError | undefined;
      let failed = 0;
      const worker = async (): Promise<void> => {
        while (firstError === undefined) {
          const batch = queue.shift();
          if (batch === undefined) return;
          try {
            await sendBatch(batch);
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
      const workers = Math.min(settings.maxConcurrentRequests, batches.length);
      await Promise.all(Array.from({ length: workers }, worker));
      if (firstError !== undefined) {
        // Batches never sent count as failed too: nothing after the first failure may be checkpointed.
        const unsent = queue.reduce((sum, batch) => sum + batch.length, 0);
        throw new PublishError(firstError.message, failed + unsent, {
          cause: firstError.cause ?? firstError,
        });
      }
      logger.debug('events published', { count: entries.length, requests: batches.length });
    },
  };
}
