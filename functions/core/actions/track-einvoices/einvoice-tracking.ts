/**
 * Tracking of e-invoice sendings. A Lambda cannot wait for the network, so the sending action
 * registers each sending in the open sendings (`open-sendings.ts`: `SENDING_SHARDS` items per
 * connection, each written with optimistic concurrency), and a scheduled tracker reads them all,
 * polls the status of every open sending, emits `IssuedInvoice.EInvoiceStatusChanged` for each transition in order,
 * and drops the sending once it is final or past its deadline (then `Action.Failed`).
 *
 * A network answers with the Invoice Response (outside Slovakia: AB, IP, UQ, CA, RE, AP, PD, kept
 * as `responseCode`) or, on the Slovak leg, with the Message Level Status (`mls`: AP, AB or RE with
 * the reasons SV, BV, BW, FD and the rule ids it gives). RE and AP of either end a sending; an MLS
 * AB does not, as the receiver's confirmation (AP) may follow.
 */
import type { MlsReasonAnswer, SendingStatus } from '#functions/accounting/answers.js';
import type { AccountingApi } from '#functions/accounting/api.js';
import { NotFoundError } from '#functions/accounting/errors.js';
import { actionFailedEntry, actionFailedSchema } from '#functions/core/events/action-events.js';
import type { CheckpointStore, Clock, EventPublisher, Logger, ObjectStore } from '#functions/core/ports.js';
import {
  type FinishedSending,
  legacyTrackingKey,
  type OpenSending,
  type OpenSendings,
  openSendingsSchema,
  recentlyFinished,
  sendingKey,
  shardKeys,
  updateOpenSendings,
} from '../open-sendings.js';
import { type OutcomeEvent, outcomeEnvelope, publishOutcomes } from '../outcomes.js';
import { einvoiceStatusChangedEntry, einvoiceStatusChangedSchema, type MlsStatus } from './events.js';
import { writeSendingRecord } from './sending-record.js';

export const EINVOICE_ACTION = 'send.einvoice';

/** Final without the service saying so: transport failure, rejected, accepted, paid. */
const FINAL_CODES = new Set(['RE', 'AP', 'PD']);
/** Final Message Level Statuses: rejected, delivered and confirmed (AB may still become AP). */
const FINAL_MLS = new Set(['RE', 'AP']);
export function isFinalStep(
  status: string,
  code: string | null | undefined,
  isFinal?: boolean,
  mls?: string | null,
): boolean {
  if (isFinal !== undefined) return isFinal;
  return (
    status === 'TransportFailed' ||
    (code !== null && code !== undefined && FINAL_CODES.has(code)) ||
    (mls !== null && mls !== undefined && FINAL_MLS.has(mls))
  );
}

export interface TrackerDeps {
  api: AccountingApi;
  sendings: CheckpointStore<OpenSendings>;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  /** A pass that finds more open sendings than this logs a warning. */
  maxOpenSendings?: number;
  /**
   * Where a finished sending's record goes, beside the invoice's ISDOC (the archive bucket; the
   * tracker may only write `*.einvoice.json` there). See `sending-record.ts`.
   */
  records: ObjectStore;
}

export interface TrackResult {
  open: number;
  transitions: number;
  closed: number;
  expired: number;
}

interface Step {
  status: string;
  code: string | null;
  mls: MlsStatus | null;
  date: string | null;
}

/** The MLS of an answer or step, as the event carries it; null where the network gives none. */
export function mlsOf(answer: {
  MessageLevelStatus?: MlsStatus['code'] | null;
  MessageLevelReasons?: MlsReasonAnswer[] | null;
}): MlsStatus | null {
  if (!answer.MessageLevelStatus) return null;
  return {
    code: answer.MessageLevelStatus,
    reasons: (answer.MessageLevelReasons ?? []).map((r) => ({
      code: r.Code,
      ruleIds: r.RuleIds ?? [],
      description: r.Description ?? null,
    })),
  };
}

function stepsOf(answer: SendingStatus): Step[] {
  const history = answer.History?.map((h) => ({
    status: h.Status,
    code: h.ResponseCode ?? null,
    mls: mlsOf(h),
    date: h.Date ?? null,
  }));
  return history && history.length > 0
    ? history
    : [{ status: answer.Status, code: answer.ResponseCode ?? null, mls: mlsOf(answer), date: null }];
}

function base(sending: OpenSending, change: string, clock: Clock, ...keyParts: string[]) {
  const { connection, source, causationId } = sending;
  return outcomeEnvelope(
    { action: EINVOICE_ACTION, connection, source, causationId },
    change,
    clock,
    ...keyParts,
  );
}

/** The service's status of a sending; a 404 is a final `Unknown` (nothing more can be learned). */
async function statusOf(deps: TrackerDeps, sending: OpenSending): Promise<SendingStatus> {
  try {
    return await deps.api.sendingStatus({ sendingId: sending.sendingId });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // Report a final `Unknown` status once and stop tracking.
    deps.logger.warn('einvoice sending unknown to the service', { sendingId: sending.sendingId });
    return { Status: 'Unknown', IsFinal: true };
  }
}

/** What one sending's pass came to: the events, how many were transitions, and its new state. */
interface SendingPass {
  events: OutcomeEvent[];
  /** The last step the network reported (the final one when `end` is `closed`). */
  last: Step;
  transitions: number;
  /** `null`: no longer tracked (final or expired); `undefined`: unchanged. */
  next: OpenSending | null | undefined;
  end?: 'closed' | 'expired';
}

/** One `EInvoiceStatusChanged` per step not yet reported, in order; whether the last is final. */
function transitionsOf(deps: TrackerDeps, sending: OpenSending, answer: SendingStatus) {
  const steps = stepsOf(answer);
  const fresh: Step[] = answer.History?.length
    ? steps.slice(sending.emitted)
    : steps.filter(
        (s) =>
          s.status !== sending.lastStatus ||
          s.code !== sending.lastCode ||
          (s.mls?.code ?? null) !== (sending.lastMls ?? null),
      );
  const events: OutcomeEvent[] = [];
  let { lastStatus, lastCode, emitted } = sending;
  let lastMls = sending.lastMls ?? null;
  let final = false;
  fresh.forEach((step, i) => {
    const isLast = i === fresh.length - 1;
    emitted += 1;
    final = isFinalStep(step.status, step.code, isLast ? answer.IsFinal : false, step.mls?.code);
    events.push({
      source: sending.eventSource,
      entry: einvoiceStatusChangedEntry,
      time: deps.clock.now(),
      detail: einvoiceStatusChangedSchema.parse({
        ...base(sending, 'EInvoiceStatusChanged', deps.clock, sending.sendingId, String(emitted)),
        sendingId: sending.sendingId,
        status: step.status,
        previousStatus: lastStatus,
        responseCode: step.code,
        mls: step.mls,
        final,
        sequence: emitted,
        statusDate: step.date,
      }),
    });
    lastStatus = step.status;
    lastCode = step.code;
    lastMls = step.mls?.code ?? null;
  });
  if (fresh.length === 0) {
    final = isFinalStep(answer.Status, answer.ResponseCode, answer.IsFinal, answer.MessageLevelStatus);
  }
  return {
    events,
    count: fresh.length,
    final,
    state: { ...sending, emitted, lastStatus, lastCode, ...(lastMls ? { lastMls } : {}) },
  };
}

/** The transitions of one sending and, past its deadline without a final status, `Action.Failed`. */
function passOf(deps: TrackerDeps, sending: OpenSending, answer: SendingStatus): SendingPass {
  const { events, count, final, state } = transitionsOf(deps, sending, answer);
  const expired = !final && deps.clock.now().getTime() >= Date.parse(sending.deadline);
  if (expired) {
    events.push({
      source: sending.eventSource,
      entry: actionFailedEntry,
      time: deps.clock.now(),
      detail: actionFailedSchema.parse({
        ...base(sending, 'Failed', deps.clock, sending.sendingId, 'deadline'),
        problem: {
          kind: 'deadline',
          message: `e-invoice sending ${sending.sendingId} did not reach a final status before ${sending.deadline}`,
        },
      }),
    });
  }
  const last = stepsOf(answer).at(-1) as Step;
  if (final) return { events, last, transitions: count, next: null, end: 'closed' };
  if (expired) return { events, last, transitions: count, next: null, end: 'expired' };
  return { events, last, transitions: count, next: count > 0 ? state : undefined };
}

/** The sendings a pass ended, as finished entries. */
function finishedOf(
  sendings: readonly OpenSending[],
  updates: ReadonlyMap<string, OpenSending | null>,
  at: string,
): FinishedSending[] {
  return sendings
    .filter((s) => updates.has(s.sendingId) && updates.get(s.sendingId) === null)
    .map((s) => ({ recordId: s.source.id, sendingId: s.sendingId, at }));
}

/**
 * Saves what the pass learned in the item `key`: changed sendings replaced, ended ones dropped and,
 * with `keepFinished`, moved to its finished list.
 */
async function saveUpdates(
  deps: TrackerDeps,
  key: string,
  updates: ReadonlyMap<string, OpenSending | null>,
  keepFinished: boolean,
): Promise<void> {
  if (updates.size === 0) return;
  const now = deps.clock.now();
  await updateOpenSendings(deps.sendings, key, (current) => ({
    sendings: current.sendings.flatMap((s) => {
      if (!updates.has(s.sendingId)) return [s];
      const next = updates.get(s.sendingId);
      return next ? [next] : [];
    }),
    finished: [
      ...recentlyFinished(current, now),
      ...(keepFinished ? finishedOf(current.sendings, updates, now.toISOString()) : []),
    ],
  }));
}

/**
 * Saves a pass over the legacy (unsharded) item: the ended sendings' finished entries go to their
 * shards first, so a duplicate check always finds them in one item or the other; the legacy item
 * only shrinks.
 */
async function saveLegacyUpdates(
  deps: TrackerDeps,
  connection: string,
  part: Part,
  updates: ReadonlyMap<string, OpenSending | null>,
): Promise<void> {
  const now = deps.clock.now();
  const byShard = new Map<string, FinishedSending[]>();
  for (const entry of finishedOf(part.sendings, updates, now.toISOString())) {
    const key = sendingKey(connection, entry.recordId);
    byShard.set(key, [...(byShard.get(key) ?? []), entry]);
  }
  for (const [key, entries] of byShard) {
    await updateOpenSendings(deps.sendings, key, (current) => ({
      finished: [...recentlyFinished(current, now), ...entries],
    }));
  }
  await saveUpdates(deps, part.key, updates, false);
}

/** One item of open sendings as the pass read it. */
interface Part {
  key: string;
  legacy: boolean;
  sendings: OpenSending[];
}

async function readParts(deps: TrackerDeps, connection: string): Promise<Part[]> {
  const legacyKey = legacyTrackingKey(connection);
  const keys = [...shardKeys(connection), legacyKey];
  const items = await Promise.all(keys.map((key) => deps.sendings.get(key)));
  return keys.map((key, i) => {
    const item = items[i];
    const sendings = item ? openSendingsSchema.parse(item.value).sendings : [];
    return { key, legacy: key === legacyKey, sendings };
  });
}

/** Polls the sendings of one item and saves what was learned; returns the error that stopped it. */
async function trackPart(
  deps: TrackerDeps,
  connection: string,
  part: Part,
  result: TrackResult,
): Promise<unknown> {
  const updates = new Map<string, OpenSending | null>();
  let stop: unknown;
  for (const sending of part.sendings) {
    let answer: SendingStatus;
    try {
      answer = await statusOf(deps, sending);
    } catch (error) {
      stop = error;
      break;
    }
    const pass = passOf(deps, sending, answer);
    try {
      // The record first: a failure leaves the sending open and nothing published for it.
      if (pass.end === 'closed') await writeSendingRecord(deps, sending, pass.last);
    } catch (error) {
      stop = error;
      break;
    }
    await publishOutcomes(deps.publisher, pass.events);
    result.transitions += pass.transitions;
    if (pass.end) result[pass.end] += 1;
    if (pass.next !== undefined) updates.set(sending.sendingId, pass.next);
  }
  if (part.legacy) await saveLegacyUpdates(deps, connection, part, updates);
  else await saveUpdates(deps, part.key, updates, true);
  return stop;
}

/**
 * One pass over the open sendings of `connection`: every shard, then the legacy item. A sending
 * that ends has its record written beside its ISDOC before its events are published. Events are
 * published before an item is saved, so a crash repeats a transition (same `idempotencyKey`)
 * rather than losing one; each item is saved once its sendings are polled. A 429/5xx stops the
 * pass; what was learned so far is saved.
 */
export async function trackEInvoices(deps: TrackerDeps, connection: string): Promise<TrackResult> {
  const parts = await readParts(deps, connection);
  const open = parts.reduce((n, p) => n + p.sendings.length, 0);
  if (deps.maxOpenSendings !== undefined && open > deps.maxOpenSendings) {
    deps.logger.warn('many open einvoice sendings', { connection, open, maxOpen: deps.maxOpenSendings });
  }
  const result: TrackResult = { open, transitions: 0, closed: 0, expired: 0 };
  let stop: unknown;
  for (const part of parts) {
    if (part.sendings.length === 0) continue;
    stop = await trackPart(deps, connection, part, result);
    if (stop !== undefined) break;
  }
  result.open -= result.closed + result.expired;
  deps.logger.info('einvoice tracking pass', { connection, ...result });
  if (stop !== undefined) throw stop;
  return result;
}

/** The registry entry (registry.ts): a pass every 5 minutes while e-invoicing is on. */
export interface TrackActionDeps extends TrackerDeps {
  /** The connection whose open sendings a pass polls. */
  connection: string;
}
