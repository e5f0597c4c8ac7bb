/** Ports of the order intake beyond `core/ports.ts`. */
import type { IntakeMessage } from './shop-order.js';

export interface EnqueueOptions {
  /** Same delivery → same id: a FIFO queue drops the repeat inside its 5-minute window. */
  deduplicationId: string;
  /** One group per shop order: deliveries of one order are imported one after another. */
  groupId: string;
}

/** Where the endpoint hands an accepted order to the import (SQS FIFO on AWS, in process locally). */
export interface IntakeQueue {
  send(message: IntakeMessage, options: EnqueueOptions): Promise<void>;
}
