/**
 * Where an action event that can never succeed (fails its catalog schema, or is not JSON) is sent
 * on its first receive, so it is dead-lettered at once instead of being redelivered until the
 * queue's `maxReceiveCount`. Adapters: `adapters/aws/sqs-dead-letter-sink.ts` (the route's DLQ),
 * the local bus's dead-letter list (`adapters/local/local-bus.ts`).
 */

/** What travels with the dead-lettered body: which action gave up on it, why, and the original message. */
export interface DeadLetterAttributes {
  /** The action (handler) name, e.g. `transfer-documents`. */
  action: string;
  /** Why the event can never succeed (field names and expectations only, never values). */
  reason: string;
  /** Id of the message (or event) as it was received. */
  messageId: string;
}

export interface DeadLetterSink {
  /** Stores `body` (the message exactly as received) with `attributes`; rejects when it could not. */
  send(body: string, attributes: DeadLetterAttributes): Promise<void>;
}
