/**
 * Ports the actions need beyond `core/ports.ts`. Adapters: `functions/handlers/action-runtime.ts`
 * builds the Powertools (DynamoDB) implementation of `IdempotencyGuard`.
 */

/** What an idempotency record is keyed by: the action and the record, never the event id. */
export interface IdempotencyKeyParts {
  action: string;
  connection: string;
  recordId: string;
}

/**
 * Runs an effect at most once to completion per key.
 * - first call: records "in progress", runs `fn`, stores its (JSON) result as completed;
 * - `fn` throws: the record is removed, so a later delivery may try again;
 * - a completed key: returns the stored result without running `fn`;
 * - a key in progress elsewhere: throws `ActionInProgressError`. An in-progress record expires
 *   after `remainingTimeMs` (the invocation's remaining time), so a crashed run does not block forever —
 *   which is why `fn` must re-read the domain state before it acts.
 */
export interface IdempotencyGuard {
  run<T>(key: IdempotencyKeyParts, fn: () => Promise<T>, options?: { remainingTimeMs?: number }): Promise<T>;
}

/** The verdict of an XML Schema on one document. */
export interface SchemaVerdict {
  valid: boolean;
  /** The schema's messages, in document order (empty when valid). */
  errors: string[];
}

/**
 * Validates ISDOC documents against the official ISDOC schema (adapter:
 * `functions/adapters/isdoc/xsd-isdoc-schema.ts`, libxml2 as WebAssembly). Asynchronous because the
 * schema is loaded on first use; a document that is not well-formed XML is invalid, not an error.
 */
export interface IsdocSchema {
  /** What the verdict is against, e.g. `ISDOC 6.0.2`. */
  readonly name: string;
  validate(xml: Uint8Array): Promise<SchemaVerdict>;
}
