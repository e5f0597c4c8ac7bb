/**
 * The one entry every action shares, for one EventBridge event: parse it against the catalog,
 * run the action, and classify what happened. The SQS handler calls it per record; the local
 * runtime calls it per event from the local bus — the same code path.
 *
 * - `invalid`: the event failed its schema, comes from a foreign source or is larger than any bus
 *   event can be; logged once (when `logInvalid`), never retried;
 * - `done` / `duplicate` / `skipped` / `failed` (an `Action.Failed` was published): acknowledged;
 * - a thrown `RetryLaterError` or a transient error (429, 5xx, network, store): deliver again later.
 */

import type { CatalogEntry } from '../events/catalog-entry.js';
import { DEFAULT_MAX_EVENT_BYTES } from '../events/claim-check.js';
import type { Logger } from '../ports.js';
import { type ActionEvent, parseActionEvent } from './action-event.js';
import { InvalidActionEventError } from './errors.js';
import type { ActionOutcome } from './outcomes.js';

export interface RunOptions {
  /** Time left in this invocation; bounds how long an in-progress idempotency record blocks others. */
  remainingTimeMs?: number;
  /** Log an invalid event (`false` on redeliveries, so it is logged once). Default `true`. */
  logInvalid?: boolean;
}

export type EntryResult = ActionOutcome | { status: 'invalid'; reason: string };

export type ActionFn = (event: ActionEvent, options: RunOptions) => Promise<ActionOutcome>;

export type ActionEntry = (raw: unknown, options?: RunOptions) => Promise<EntryResult>;

/** UTF-8 size of the event's `detail` as JSON (0 when it has none). */
function detailBytes(raw: unknown): number {
  if (raw === null || typeof raw !== 'object') return 0;
  const text = JSON.stringify((raw as { detail?: unknown }).detail);
  return text === undefined ? 0 : Buffer.byteLength(text);
}

/**
 * The event is checked against the catalog (and the action's `triggers`) and its size; the
 * per-connection path (`core/connection-actions.ts`) checks the source of the connection the event
 * names, and an `InvalidActionEventError` it throws is refused the same way (invalid,
 * dead-lettered, never retried). The routes already match the source; an event that reaches the
 * queue by another way (a direct send, a misconfigured rule) is invalid too.
 */
export function createActionEntry(
  name: string,
  logger: Logger,
  action: ActionFn,
  triggers: readonly CatalogEntry[] = [],
): ActionEntry {
  return async (raw, options = {}) => {
    let event: ActionEvent;
    try {
      if (detailBytes(raw) > DEFAULT_MAX_EVENT_BYTES) {
        throw new InvalidActionEventError(undefined, [
          `detail: larger than ${DEFAULT_MAX_EVENT_BYTES} bytes (no event on the bus can be; a large record travels by claim check)`,
        ]);
      }
      event = parseActionEvent(raw, triggers);
    } catch (error) {
      if (!(error instanceof InvalidActionEventError)) throw error;
      if (options.logInvalid !== false) {
        // The issues name fields and expectations only, never the values.
        logger.error('invalid event dead-lettered', {
          action: name,
          detailType: error.detailType,
          issues: error.issues.slice(0, 20),
        });
      }
      return { status: 'invalid', reason: error.message.slice(0, 500) };
    }
    let outcome: ActionOutcome;
    try {
      outcome = await action(event, options);
    } catch (error) {
      // The per-connection path refuses an event whose source is not its connection's the same way.
      if (!(error instanceof InvalidActionEventError)) throw error;
      if (options.logInvalid !== false) {
        logger.error('invalid event dead-lettered', {
          action: name,
          detailType: error.detailType,
          issues: error.issues.slice(0, 20),
        });
      }
      return { status: 'invalid', reason: error.message.slice(0, 500) };
    }
    logger.debug('action finished', {
      action: name,
      eventId: event.eventId,
      detailType: event.detailType,
      status: outcome.status,
      reason: outcome.reason,
    });
    return outcome;
  };
}
