/**
 * One run of the sending action (`send-invoice.ts`), shared by its channels (`send-einvoice.ts`
 * for the network, e-mail in `send-invoice.ts`): the invoice as the service holds it, the chosen
 * channel, and how an outcome is announced once the request may have reached the service.
 */
import type { AccountingApi, ApiRecord } from '../../../accounting/api.js';
import type { SourceRef } from '../../events/action-events.js';
import type { CheckpointStore, Clock, EventPublisher, Logger } from '../../ports.js';
import type { ActionEvent } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import type { OpenSendings } from '../open-sendings.js';
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
  config: Pick<ActionsConfig, 'sending' | 'eventSource' | 'connection' | 'referenceLookbackSeconds'>;
}

export type Channel = { kind: 'einvoice' } | { kind: 'email'; to?: string };

/** What the idempotency record stores for a completed sending (JSON). */
export interface SendRecordResult {
  result: 'sent' | 'outcomeUnknown';
  sendingId?: string;
}

export interface SendRun {
  deps: SendDeps;
  event: ActionEvent;
  record: ApiRecord;
  channel: Channel;
  documentNumber: string | null;
  source: SourceRef;
  ctx: OutcomeContext;
  log: Record<string, string>;
  /** Path parameters of the sending operations. */
  params: { collection: string; id: string };
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
