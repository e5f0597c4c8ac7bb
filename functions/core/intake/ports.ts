/** Ports of the order intake beyond `core/ports.ts`. */
import type { QueuedIntakeMessage } from './shop-order.js';

export interface EnqueueOptions {
  /** Same delivery → same id: a FIFO queue drops the repeat inside its 5-minute window. */
  deduplicationId: string;
  /** One group per shop order: deliveries of one order are imported one after another. */
  groupId: string;
}

/**
 * Where the endpoint hands an accepted order to the import (SQS FIFO on AWS, in process locally):
 * the order itself, or its claim check when the message would be over the queue's size.
 */
export interface IntakeQueue {
  send(message: QueuedIntakeMessage, options: EnqueueOptions): Promise<void>;
}

/**
 * Create attempts of the import, one per shop order: `begin` records that a create is about to
 * be tried and says whether one was recorded before. Only then can a received order of this shop
 * order exist without a completed intake record (a crash after the create), so only then does
 * the import read the received orders back; the usual first import reads nothing.
 */
export interface ImportAttempts {
  /** `true` when no attempt was recorded for `key` before this one. */
  begin(key: string): Promise<boolean>;
}
