/**
 * The import: one queued shop order → one received order in the accounting service, exactly once.
 *
 * The service's create carries no idempotency key, so duplicates are ours to prevent:
 * 1. an intake record keyed by (connection, source, shop order id) — the actions' Powertools
 *    idempotency guard — lets one delivery in at a time and remembers a completed import;
 * 2. a run that finds an earlier create attempt recorded (`ImportAttempts`) first looks for a
 *    received order that carries the order's marker in `InternalNote` (modified since the shop's
 *    order date, minus a lookback), because an in-progress record expires after a crash between
 *    the create and the record; and after `OutcomeUnknownError` (a create that may have reached
 *    the service) it looks again before anything is created. A first attempt reads nothing.
 */

import type { AccountingApi, ApiRecord, Created } from '#functions/accounting/api.js';
import { BadRequestError, OutcomeUnknownError, ValidationError } from '#functions/accounting/errors.js';
import { ActionInProgressError, RetryLaterError } from '../actions/errors.js';
import type { ActionOutcome } from '../actions/outcomes.js';
import type { IdempotencyGuard } from '../actions/ports.js';
import type { Clock, EventPublisher, Logger } from '../ports.js';
import type { IntakeConfig } from './intake-config.js';
import { type IntakeEventOrigin, publishIntakeEvent } from './intake-events-out.js';
import { type MappedOrder, MappingError, mapOrder, orderMarker } from './map-order.js';
import { normaliseTotals, TotalsMismatchError, totalsDifferences } from './order-totals.js';
import type { ImportAttempts, ShoptetApi } from './ports.js';
import type { ReferenceCache } from './references.js';
import { serviceTotals } from './service-totals.js';
import { type IntakeMessage, intakeRecordId } from './shop-order.js';

export const IMPORT_ACTION = 'intake.importOrder';
export const CREATE_OPERATION = 'ReceivedOrders.create';

export interface ImportDeps {
  api: AccountingApi;
  guard: IdempotencyGuard;
  attempts: ImportAttempts;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  references: ReferenceCache;
  /** Where Shoptet orders are fetched (a Shoptet notice names only the order's code). */
  shoptet?: ShoptetApi | undefined;
  config: Pick<IntakeConfig, 'mapping' | 'lookbackSeconds' | 'eventSource'> &
    Partial<Pick<IntakeConfig, 'replayHorizonSeconds'>>;
}

/**
 * Why an order is beyond the replay horizon, or undefined. The import's idempotency record lasts
 * `horizon` seconds from the first import, which comes after the order's creation: an order
 * created longer ago may have lost its record, and a replayed delivery (neither Shopify nor
 * WooCommerce signs a time) would import it again. A Standard Webhooks delivery carries a signed
 * time the endpoint holds to 5 minutes, so a generic order may lack its date.
 */
export function beyondReplayHorizon(
  message: Pick<IntakeMessage, 'source' | 'order'>,
  horizonSeconds: number | undefined,
  now: Date,
): string | undefined {
  if (horizonSeconds === undefined) return undefined;
  const created = message.order.createdAt ? Date.parse(message.order.createdAt) : Number.NaN;
  if (!Number.isFinite(created)) {
    return message.source === 'generic' ? undefined : 'the order has no creation date to tell a replay by';
  }
  return now.getTime() - created >= horizonSeconds * 1000
    ? `the order was created over ${horizonSeconds} s ago (the replay horizon)`
    : undefined;
}

interface ImportRecordResult {
  result: 'imported';
  receivedOrderId: string;
  documentNumber: string | null;
  recovered: boolean;
  /** The service's totals differ from the shop's (announced as a rejection). */
  totalsDiffer?: boolean;
}

/** A received order carrying `marker` in its internal note, modified since `since`, or undefined. */
export async function findImportedOrder(
  api: AccountingApi,
  marker: string,
  since: string,
): Promise<ApiRecord | undefined> {
  for await (const r of api.listItems('ReceivedOrders', { modifiedSince: since })) {
    if (typeof r.InternalNote === 'string' && r.InternalNote.includes(marker)) return r;
  }
  return undefined;
}

function searchSince(message: IntakeMessage, lookbackSeconds: number): string {
  const dates = [message.receivedAt, message.order.createdAt].map((d) => (d ? Date.parse(d) : Number.NaN));
  const earliest = Math.min(...dates.filter((t) => Number.isFinite(t)));
  return new Date(Math.max(0, earliest - lookbackSeconds * 1000)).toISOString();
}

export async function importOrder(
  deps: ImportDeps,
  message: IntakeMessage,
  options: { remainingTimeMs?: number } = {},
): Promise<ActionOutcome> {
  const { order, source } = message;
  const origin: IntakeEventOrigin = {
    connection: message.connection,
    source,
    shopOrderId: order.id,
    orderNumber: order.number,
  };
  const log = { source, shopOrderId: order.id, deliveryId: message.deliveryId };
  const stale = beyondReplayHorizon(message, deps.config.replayHorizonSeconds, deps.clock.now());
  if (stale) {
    deps.logger.warn('order beyond the replay horizon refused', log);
    return { status: 'skipped', reason: stale };
  }
  const marker = orderMarker(source, order.id);
  const since = searchSince(message, deps.config.lookbackSeconds);
  const events = { ...deps, eventSource: deps.config.eventSource };

  let ran = false;
  const once = async (): Promise<ImportRecordResult> => {
    ran = true;
    const mapped = await buildRequest(deps, message);
    const body = mapped.request;
    const imported = (record: ApiRecord, warnings: Created['warnings'], recovered: boolean) =>
      announceImported({ deps, events, origin, message }, record, { warnings, recovered, mapped });
    const first = await deps.attempts.begin(`${message.connection}#${intakeRecordId(source, order.id)}`);
    if (!first) {
      const existing = await findImportedOrder(deps.api, marker, since);
      if (existing) {
        deps.logger.info('import found existing order', { ...log, receivedOrderId: existing.Id });
        return imported(existing, [], true);
      }
    }
    let created: Created;
    try {
      created = await deps.api.create(CREATE_OPERATION, { body });
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      const found = await findImportedOrder(deps.api, marker, since);
      if (found) {
        deps.logger.warn('import outcome unknown, order found', { ...log, receivedOrderId: found.Id });
        return imported(found, [], true);
      }
      throw new RetryLaterError('import outcome unknown and no order found', undefined, { cause: error });
    }
    const record = created.data ?? (await findImportedOrder(deps.api, marker, since));
    if (!record) throw new RetryLaterError('the create answered without a document and none was found');
    deps.logger.info('order imported', { ...log, receivedOrderId: record.Id });
    return imported(record, created.warnings, false);
  };

  try {
    const result = await deps.guard.run(
      { action: IMPORT_ACTION, connection: message.connection, recordId: intakeRecordId(source, order.id) },
      once,
      options,
    );
    if (!ran) return { status: 'duplicate', reason: `already imported as ${result.receivedOrderId}` };
    if (result.totalsDiffer) return { status: 'failed', reason: 'totals' };
    return { status: 'done' };
  } catch (error) {
    return rejectOrRethrow(deps, events, origin, message, error);
  }
}

/** Maps the order; a mapping problem is tried once more on fresh references (a partner or rate added). */
async function buildRequest(deps: ImportDeps, message: IntakeMessage): Promise<MappedOrder> {
  const map = async () =>
    mapOrder(
      message.source,
      message.order,
      await deps.references.get(),
      deps.config.mapping,
      new Date(message.receivedAt),
    );
  try {
    return await map();
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    deps.references.invalidate();
    return map();
  }
}

type ImportContext = {
  deps: ImportDeps;
  events: ImportDeps & { eventSource: string };
  origin: IntakeEventOrigin;
  message: IntakeMessage;
};

/** `EshopOrder.Imported` for the received order, unless the service's totals differ from the shop's. */
async function announceImported(
  { deps, events, origin, message }: ImportContext,
  record: ApiRecord,
  { warnings, recovered, mapped }: { warnings: Created['warnings']; recovered: boolean; mapped: MappedOrder },
): Promise<ImportRecordResult> {
  const documentNumber = typeof record.DocumentNumber === 'string' ? record.DocumentNumber : null;
  const result: ImportRecordResult = {
    result: 'imported',
    receivedOrderId: record.Id,
    documentNumber,
    recovered,
  };
  if (await serviceTotalsDiffer(deps, events, origin, message, record))
    return { ...result, totalsDiffer: true };
  await publishIntakeEvent(events, origin, 'Imported', {
    receivedOrderId: record.Id,
    documentNumber,
    warnings,
    recovered,
    ...(mapped.vatRounding.length > 0 ? { vatRounding: mapped.vatRounding } : {}),
  });
  if (mapped.vatRounding.length > 0) {
    deps.logger.info('order imported with the shop VAT rounding', {
      source: origin.source,
      shopOrderId: origin.shopOrderId,
      vatRounding: mapped.vatRounding,
    });
  }
  if (warnings.length > 0) {
    deps.logger.warn('import warnings', {
      source: origin.source,
      shopOrderId: origin.shopOrderId,
      deliveryId: message.deliveryId,
      warnings,
    });
  }
  return result;
}

/**
 * Compares the service's totals of the created (or found) order with the shop's; on a difference
 * announces the rejection with every figure and says so. Without the shop's or the service's
 * totals there is nothing to compare.
 */
async function serviceTotalsDiffer(
  deps: ImportDeps,
  events: ImportDeps & { eventSource: string },
  origin: IntakeEventOrigin,
  message: IntakeMessage,
  record: ApiRecord,
): Promise<boolean> {
  const shop = message.order.totals;
  if (!shop) return false;
  const at = message.order.createdAt ? Date.parse(message.order.createdAt) : Date.parse(message.receivedAt);
  const service = serviceTotals(record, await deps.references.get(), at);
  if (!service) return false;
  const reasons = totalsDifferences(shop, service, "the service's");
  if (reasons.length === 0) return false;
  deps.logger.error('imported order totals differ from the shop', {
    source: origin.source,
    shopOrderId: origin.shopOrderId,
    deliveryId: message.deliveryId,
    receivedOrderId: record.Id,
    reasons,
  });
  const figures = normaliseTotals(shop);
  await publishIntakeEvent(
    events,
    origin,
    'Rejected',
    {
      stage: 'service',
      reasons,
      reason: 'totals',
      totals: {
        currency: message.order.currency,
        shop: figures,
        ours: figures,
        service: normaliseTotals(service),
      },
      receivedOrderId: record.Id,
    },
    message.deliveryId,
  );
  return true;
}

async function rejectOrRethrow(
  deps: ImportDeps,
  events: ImportDeps & { eventSource: string },
  origin: IntakeEventOrigin,
  message: IntakeMessage,
  error: unknown,
): Promise<ActionOutcome> {
  const log = { source: origin.source, shopOrderId: origin.shopOrderId, deliveryId: message.deliveryId };
  let stage: 'mapping' | 'service' | undefined;
  let reasons: string[] = [];
  if (error instanceof TotalsMismatchError) {
    deps.logger.warn('import rejected', {
      ...log,
      stage: 'mapping',
      reason: 'totals',
      reasons: error.reasons,
    });
    await publishIntakeEvent(
      events,
      origin,
      'Rejected',
      {
        stage: 'mapping',
        reasons: error.reasons,
        reason: 'totals',
        totals: { currency: message.order.currency, shop: error.shop, ours: error.ours },
      },
      message.deliveryId,
    );
    return { status: 'failed', reason: 'totals' };
  }
  if (error instanceof MappingError) {
    stage = 'mapping';
    reasons = error.reasons;
  } else if (error instanceof ValidationError || error instanceof BadRequestError) {
    stage = 'service';
    const fields = Object.entries(error.errors).map(([field, messages]) => `${field}: ${messages.join(' ')}`);
    reasons = fields.length > 0 ? fields : [`${error.status}: ${error.message}`];
  }
  if (stage) {
    deps.logger.warn('import rejected', { ...log, stage, reasons: reasons.slice(0, 20) });
    await publishIntakeEvent(events, origin, 'Rejected', { stage, reasons }, message.deliveryId);
    return { status: 'failed', reason: stage };
  }
  if (error instanceof ActionInProgressError) {
    throw new RetryLaterError('another delivery is importing this order', error.retryAfterMs, {
      cause: error,
    });
  }
  throw error;
}
