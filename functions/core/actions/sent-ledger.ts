/**
 * What was sent to a partner, kept in the action state apart from the idempotency records: one item
 * per sending (`sent#<connection>#<kind>#<key>`), claimed before the request goes and settled after
 * it. The idempotency record answers a redelivery; this answers when that record is gone (expired,
 * or removed by anyone who reached the idempotency table): a sending claimed before is not made
 * again, whatever republished its event.
 *
 * - `requested`: claimed, the request may have gone; a second claim finds the outcome unknown.
 * - `sent`: the service took it; a second claim is a duplicate.
 * - `notSent`: the request is known not to have reached the service; the next claim may go.
 */
import * as z from 'zod';
import { CheckpointConflictError } from '../errors.js';
import type { CheckpointStore } from '../ports.js';

const entrySchema = z.object({
  state: z.enum(['requested', 'sent', 'notSent']),
  at: z.string(),
  /** The event the sending ran on. */
  causationId: z.string(),
});
type Entry = z.infer<typeof entrySchema>;

export interface SentKey {
  connection: string;
  /** What is sent: `einvoice`, `email`, `reminder-<stage>`. */
  kind: string;
  /** The document (and whatever else makes the sending one of its kind, e.g. a due date). */
  key: string;
}

export function sentLedgerKey(k: SentKey): string {
  return `sent#${k.connection}#${k.kind}#${k.key}`;
}

export type Claim = 'go' | 'sent' | 'requested';

const MAX_CONFLICT_RETRIES = 5;

/**
 * Claims a sending before its request: `go` (claimed now), `sent` (sent before) or `requested` (a
 * request claimed before may have gone). Only one of two concurrent claims gets `go`.
 */
export async function claimSending(
  state: CheckpointStore<unknown>,
  k: SentKey,
  causationId: string,
  now: Date,
): Promise<Claim> {
  const key = sentLedgerKey(k);
  const claimed: Entry = { state: 'requested', at: now.toISOString(), causationId };
  for (let attempt = 1; ; attempt += 1) {
    const stored = await state.get(key);
    const current = stored ? entrySchema.parse(stored.value) : undefined;
    if (current && current.state !== 'notSent') return current.state;
    try {
      await state.put(key, claimed, stored?.version);
      return 'go';
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
}

/** Settles a claimed sending: `sent`, or `notSent` when the request is known not to have gone. */
export async function settleSending(
  state: CheckpointStore<unknown>,
  k: SentKey,
  outcome: 'sent' | 'notSent',
  now: Date,
): Promise<void> {
  const key = sentLedgerKey(k);
  for (let attempt = 1; ; attempt += 1) {
    const stored = await state.get(key);
    const current = stored ? entrySchema.parse(stored.value) : undefined;
    const next: Entry = { state: outcome, at: now.toISOString(), causationId: current?.causationId ?? '-' };
    try {
      await state.put(key, next, stored?.version);
      return;
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
}
