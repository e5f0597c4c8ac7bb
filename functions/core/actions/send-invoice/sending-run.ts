/**
 * One run of the sending action (`send-invoice.ts`), shared by its channels (`send-einvoice.ts`
 * for the network, e-mail in `send-invoice.ts`): the invoice as the service holds it, the chosen
 * channel, and how an outcome is announced once the request may have reached the service.
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import type { CollectionName } from '#functions/accounting/collections.js';
import type { SourceRef } from '#functions/core/events/action-events.js';
import type { CheckpointStore, Clock, EventPublisher, Logger } from '#functions/core/ports.js';
import type { ActionEvent } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import type { OpenSendings } from '../open-sendings.js';
import type { Channel, PartnerFacts } from './channel-policy.js';

export type { Channel } from './channel-policy.js';

import { type OutcomeContext, problemOf, publishFailure } from '../outcomes.js';
import type { IdempotencyGuard } from '../ports.js';

export interface SendDeps {
  api: AccountingApi;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  guard: IdempotencyGuard;
  /** Open sendings for the tracker (required for e-invoicing). */
  sendings?: CheckpointStore<OpenSendings>;
  /** Invoices the e-invoicing pre-flight blocked (required for e-invoicing; the same state table). */
  blocks?: CheckpointStore<unknown>;
  /**
   * The action state: holds for a person (`sending-hold.ts`) and what was sent (`sent-ledger.ts`);
   * the open sendings' store when absent.
   */
  state?: CheckpointStore<unknown>;
  config: Pick<
    ActionsConfig,
    'sending' | 'variant' | 'eventSource' | 'connection' | 'referenceLookbackSeconds'
  >;
}

/** What the idempotency record stores for a completed sending (JSON). */
export interface SendRecordResult {
  /** `alreadySent`: the sent ledger holds this sending already (its idempotency record was gone). */
  result: 'sent' | 'outcomeUnknown' | 'alreadySent';
  sendingId?: string;
}

export interface SendRun {
  deps: SendDeps;
  event: ActionEvent;
  record: ApiRecord;
  channel: Channel;
  /** The invoice's partner as the service knows it (read for the e-invoicing channel). */
  partner?: PartnerFacts;
  documentNumber: string | null;
  source: SourceRef;
  ctx: OutcomeContext;
  log: Record<string, string>;
  /** The document the sending operations send. */
  params: { collection: CollectionName; id: string };
}

/** The action state of a run: holds and the sent ledger. */
export function stateOf(deps: SendDeps): CheckpointStore<unknown> | undefined {
  return deps.state ?? (deps.sendings as CheckpointStore<unknown> | undefined);
}

/**
 * Publishes an outcome once the request may have reached the service. A failure is logged, not
 * thrown: a throw inside the guarded run removes the idempotency record, and the redelivery
 * would send the invoice a second time.
 */
export async function announce(run: SendRun, publish: () => Promise<void>): Promise<void> {
  try {
    await publish();
  } catch (error) {
    run.deps.logger.error('sending outcome not announced', {
      ...run.log,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** `Action.Failed` (`outcomeUnknown`) for a person to check; the invoice is not sent again. */
export async function reportOutcomeUnknown(run: SendRun, message: string): Promise<SendRecordResult> {
  await announce(run, () => publishFailure(run.deps, run.ctx, problemOf('outcomeUnknown', message)));
  return { result: 'outcomeUnknown' };
}
