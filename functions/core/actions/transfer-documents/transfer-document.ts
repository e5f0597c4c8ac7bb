/**
 * The transfer action: one step of the chain (received order → issue slip → issued invoice,
 * issued offer → received order, issued order → received invoice), exactly once per source.
 *
 * The service's transfer call carries no idempotency key, so duplicates are ours to prevent:
 * 1. an idempotency record keyed by action + source id (not the event id: a `Created` and an
 *    `Updated` of one order share it) lets one delivery in at a time and remembers a completed one;
 * 2. before acting, every run re-reads the domain state — the source's current `Status` and
 *    whether a target document made from the source already exists — because an in-progress
 *    record expires after a crash and the client may report `OutcomeUnknownError`.
 *
 * Only what the real service keeps identifies such a target: no document carries a back
 * reference, but a transfer links every target item to its source item
 * (`IssueSlipItemDto.ReceivedOrderItemId`, `IssuedInvoiceItemDto.ReceivedOrderItemId`,
 * `ReceivedOrderItemDto.IssuedOfferItemGuid`, `ReceivedInvoiceItemDto.IssuedOrderItemId`), and an
 * item carries its links on down the chain (an invoice made from an issue slip keeps the slip
 * items' `ReceivedOrderItemId`). The transfer request takes no body, so no text or note of ours
 * can mark the target. After an unknown outcome the source's status (the orders' status
 * endpoint, the record's `Status` otherwise) tells whether the transfer happened.
 */
import type { AccountingApi, ApiRecord, Created } from '#functions/accounting/api.js';
import { NotFoundError, OutcomeUnknownError, ValidationError } from '#functions/accounting/errors.js';
import type { SourceRef } from '#functions/core/events/action-events.js';
import type { Clock, EventPublisher, Logger } from '#functions/core/ports.js';
import { type ActionEvent, stringField } from '../action-event.js';
import type { ActionsConfig } from '../config.js';
import { ActionInProgressError, NotTransferableError, RetryLaterError } from '../errors.js';
import {
  type ActionOutcome,
  type OutcomeContext,
  outcomeBase,
  problemOf,
  publishFailure,
  publishOutcome,
} from '../outcomes.js';
import type { IdempotencyGuard } from '../ports.js';
import { transferredEntry } from './events.js';
import { findTransferStep, type TransferStepSpec } from './transfer-steps.js';

export interface TransferDeps {
  api: AccountingApi;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  guard: IdempotencyGuard;
  /** `variant` defaults to `sk` (the contract's chain). */
  config: Pick<ActionsConfig, 'transfers' | 'referenceLookbackSeconds' | 'eventSource' | 'connection'> &
    Partial<Pick<ActionsConfig, 'variant'>>;
}

/** What the idempotency record stores for a completed transfer (JSON). */
interface TransferRecordResult {
  result: 'transferred';
  targetId: string;
  targetNumber: string | null;
  recovered: boolean;
}

/** What a target made from a source keeps of it, in its items. */
export interface SourceLinks {
  /** Ids of the source's items: a target item made from one names it. */
  readonly itemIds: ReadonlySet<string>;
  /** Links the source's own items carry (to the order they came from): a target inherits them all. */
  readonly inherited: ReadonlySet<string>;
}

function itemsOf(record: ApiRecord): Record<string, unknown>[] {
  return Array.isArray(record.Items) ? (record.Items as Record<string, unknown>[]) : [];
}

/** The item ids a target's items name, besides their own. */
function linkedIds(item: Record<string, unknown>): string[] {
  return Object.entries(item)
    .filter(([key, value]) => key !== 'Id' && typeof value === 'string')
    .map(([, value]) => (value as string).toLowerCase());
}

export function sourceLinks(source: ApiRecord): SourceLinks {
  const items = itemsOf(source);
  const itemIds = new Set(items.map((i) => String(i.Id ?? '').toLowerCase()).filter((id) => id !== ''));
  const inherited = new Set(
    items.flatMap((i) =>
      typeof i.ReceivedOrderItemId === 'string' ? [i.ReceivedOrderItemId.toLowerCase()] : [],
    ),
  );
  return { itemIds, inherited };
}

/**
 * `true` when `target` was made from the source: one of its items names a source item, or its
 * items carry every link the source's items carry (a step further down the chain).
 */
export function linksToSource(target: ApiRecord, links: SourceLinks): boolean {
  const named = new Set(itemsOf(target).flatMap(linkedIds));
  for (const id of links.itemIds) if (named.has(id)) return true;
  if (links.inherited.size === 0) return false;
  for (const id of links.inherited) if (!named.has(id)) return false;
  return true;
}

/** A target document made from the source, modified since `since` (ISO), or undefined. */
export async function findExistingTarget(
  api: AccountingApi,
  step: TransferStepSpec,
  links: SourceLinks,
  since: string,
): Promise<ApiRecord | undefined> {
  if (links.itemIds.size === 0 && links.inherited.size === 0) return undefined;
  for await (const candidate of api.listItems(step.targetCollection, { modifiedSince: since })) {
    if (linksToSource(candidate, links)) return candidate;
  }
  return undefined;
}

/** The source's status now: the orders' status endpoint, the record's `Status` otherwise. */
async function sourceStatus(api: AccountingApi, step: TransferStepSpec, id: string): Promise<string | null> {
  if (step.sourceCollection === 'ReceivedOrders' || step.sourceCollection === 'IssuedOrders') {
    return api.orderStatus({ collection: step.sourceCollection, id });
  }
  const record = await api.get(step.sourceCollection, id);
  return typeof record.Status === 'string' ? record.Status : null;
}

function earliest(dates: (string | null | undefined)[], lookbackSeconds: number): string {
  const times = dates.filter((d): d is string => typeof d === 'string').map((d) => Date.parse(d));
  const valid = times.filter((t) => Number.isFinite(t));
  const base = valid.length > 0 ? Math.min(...valid) : 0;
  return new Date(Math.max(0, base - lookbackSeconds * 1000)).toISOString();
}

/** One transfer run: the event, its step of the chain, and how to report. */
interface TransferRun {
  deps: TransferDeps;
  event: ActionEvent;
  step: TransferStepSpec;
  /** Named as the service holds it once read (its `documentNumber` is updated then). */
  source: SourceRef;
  ctx: OutcomeContext;
  log: Record<string, string>;
}

async function publishTransferred(
  run: TransferRun,
  target: ApiRecord,
  warnings: Created['warnings'],
  recovered: boolean,
): Promise<TransferRecordResult> {
  const { deps, event, step } = run;
  const targetNumber = stringField(target, 'DocumentNumber');
  await publishOutcome(
    deps.publisher,
    event.source,
    transferredEntry(step.sourceRecordType),
    {
      ...outcomeBase(run.ctx, 'Transferred', deps.clock),
      target: { recordType: step.targetRecordType, id: target.Id, documentNumber: targetNumber },
      warnings,
      recovered,
    },
    deps.clock.now(),
  );
  if (warnings.length > 0) deps.logger.warn('transfer warnings', { ...run.log, warnings });
  return { result: 'transferred', targetId: target.Id, targetNumber, recovered };
}

/**
 * After an unknown outcome: a target made from the source is the transfer; else the next delivery
 * re-reads the domain state before it acts again (the source's status is logged to tell which).
 */
async function recoverUnknownOutcome(
  run: TransferRun,
  links: SourceLinks,
  since: string,
  error: OutcomeUnknownError,
): Promise<TransferRecordResult> {
  const { deps, step, event } = run;
  const found = await findExistingTarget(deps.api, step, links, since);
  if (found) {
    deps.logger.warn('transfer outcome unknown, target found', { ...run.log, targetId: found.Id });
    return publishTransferred(run, found, [], true);
  }
  const after = await sourceStatus(deps.api, step, event.envelope.id).catch(() => null);
  const happened = after !== null && !step.transferableStatuses.includes(after);
  deps.logger.warn('transfer outcome unknown, no target found', { ...run.log, status: after, happened });
  const reason = happened
    ? `transfer outcome unknown: the source is ${after} but its target is not visible yet`
    : 'transfer outcome unknown and no target found';
  throw new RetryLaterError(reason, undefined, { cause: error });
}

/** The guarded effect: domain state first, on every run, then the transfer. */
async function transferOnce(run: TransferRun): Promise<TransferRecordResult> {
  const { deps, step, event, source } = run;
  const { envelope } = event;
  // The status now, and a target already made from the source.
  const current = await deps.api.get(step.sourceCollection, envelope.id);
  const status = typeof current.Status === 'string' ? current.Status : null;
  // Outcomes name the source as the service holds it, not as the event said.
  source.documentNumber = stringField(current, 'DocumentNumber') ?? source.documentNumber;
  const since = earliest(
    [envelope.modifiedDate, current.ModificationInfo?.ModifiedDate],
    deps.config.referenceLookbackSeconds,
  );
  const links = sourceLinks(current);
  const existing = await findExistingTarget(deps.api, step, links, since);
  if (existing) {
    deps.logger.info('transfer found existing target', { ...run.log, targetId: existing.Id, status });
    return publishTransferred(run, existing, [], true);
  }
  if (status === null || !step.transferableStatuses.includes(status)) {
    deps.logger.info('transfer not applicable', { ...run.log, status });
    // Thrown, not returned: only effects are remembered, so a reopened source can still be transferred.
    throw new NotTransferableError(status);
  }
  let created: Created;
  try {
    created = await deps.api.create(step.operationId, { params: { id: envelope.id } });
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    return recoverUnknownOutcome(run, links, since, error);
  }
  const target = created.data ?? (await findExistingTarget(deps.api, step, links, since));
  if (!target) throw new RetryLaterError('transfer answered without a document and none was found');
  deps.logger.info('transferred', { ...run.log, targetId: target.Id });
  return publishTransferred(run, target, created.warnings, false);
}

/** What an error of the guarded run comes to: an outcome, or a retry later. */
async function settleError(run: TransferRun, error: unknown): Promise<ActionOutcome> {
  const { deps } = run;
  if (error instanceof NotTransferableError) {
    return { status: 'skipped', reason: `source status ${error.sourceStatus ?? 'unknown'}` };
  }
  if (error instanceof ValidationError) {
    deps.logger.warn('transfer rejected', { ...run.log, status: error.status, errors: error.errors });
    await publishFailure(deps, run.ctx, problemOf('validation', 'the service rejected the transfer', error));
    return { status: 'failed', reason: 'validation' };
  }
  if (error instanceof NotFoundError) {
    deps.logger.info('transfer source gone', run.log);
    return { status: 'skipped', reason: 'source not found' };
  }
  if (error instanceof ActionInProgressError) {
    throw new RetryLaterError('another delivery is transferring this record', error.retryAfterMs, {
      cause: error,
    });
  }
  throw error;
}

export async function transferDocument(
  deps: TransferDeps,
  event: ActionEvent,
  options: { remainingTimeMs?: number } = {},
): Promise<ActionOutcome> {
  const { envelope } = event;
  const step = findTransferStep(envelope.recordType, deps.config.variant);
  if (!step) return { status: 'skipped', reason: `no transfer step for ${envelope.recordType}` };
  if (!deps.config.transfers[step.step]) return { status: 'skipped', reason: `step ${step.step} is off` };
  const source: SourceRef = {
    recordType: envelope.recordType,
    id: envelope.id,
    documentNumber: stringField(envelope.record, 'DocumentNumber'),
    modifiedDate: envelope.modifiedDate,
  };
  const ctx: OutcomeContext = { action: step.action, event, source };
  const log = { action: step.action, recordId: envelope.id, eventId: event.eventId };
  const run: TransferRun = { deps, event, step, source, ctx, log };
  let ran = false;
  try {
    const result = await deps.guard.run(
      { action: step.action, connection: envelope.connection, recordId: envelope.id },
      () => {
        ran = true;
        return transferOnce(run);
      },
      options,
    );
    if (!ran) return { status: 'duplicate', reason: `already transferred to ${result.targetId}` };
    return { status: 'done' };
  } catch (error) {
    return settleError(run, error);
  }
}
