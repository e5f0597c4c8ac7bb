/**
 * The console's JSON API over what the running runtime holds: the live feed (events, outcomes,
 * attempts, connections), the dead letters of the data directory, the archive, the checkpoints.
 * Changes (replay, redrive) go through the bus, with the same code as the CLI's commands.
 */
import type { DeadLetterStore } from '#functions/adapters/local/dead-letter-store.js';
import type { DeadLetter, LocalBus } from '#functions/adapters/local/local-bus.js';
import type { IsdocSchema } from '#functions/core/actions/ports.js';
import { NoHoldError } from '#functions/core/actions/sending-hold.js';
import type { ReadinessReport } from '#functions/core/einvoicing/readiness.js';
import type { DetailType } from '#functions/core/event-catalog.js';
import type { ObjectStore } from '#functions/core/ports.js';
import { systemClock } from '#functions/shared/clock.js';
import type { CheckpointRow } from '../commands/checkpoints.js';
import { deadLetterKey, redriveDeadLetters } from '../dead-letter-redrive.js';
import type { LocalHolds } from '../holds.js';
import type { ConsoleFeed, FeedEvent } from './console-feed.js';
import {
  archiveEntry,
  isArchiveKey,
  redriveBodySchema,
  releaseBodySchema,
  replayBodySchema,
} from './console-requests.js';
import { fieldDocs, parseEventFilter, selectEvents } from './event-query.js';
import { readIsdocView } from './isdoc-view.js';
import {
  assignBodySchema,
  assignmentEvent,
  PaymentAssignmentError,
  unmatchedPayments,
} from './payment-assignments.js';

export interface ConsoleSources {
  feed: ConsoleFeed;
  bus: LocalBus;
  deadLetters: DeadLetterStore;
  archive: ObjectStore;
  isdocSchema: IsdocSchema;
  checkpoints: () => Promise<CheckpointRow[]>;
  /** The holds for a person: listed, and released by the person at the console. */
  holds?: LocalHolds;
  /** The e-invoicing readiness report of each connection it covers (read from the service on each ask). */
  readiness?: () => Promise<ReadinessReport[]>;
}

export type Reply =
  | { status: number; json: unknown }
  | { status: number; body: Buffer; type: string; download?: string };

/** A request the API answers with 400 (a bad parameter or body), 404 or 409, with its reason. */
export class ConsoleRequestError extends Error {
  override readonly name = 'ConsoleRequestError';
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** An event's line in the list (its detail only in the detail view). */
export function summaryOf(item: FeedEvent) {
  return {
    seq: item.seq,
    id: item.event.id,
    detailType: item.event['detail-type'],
    source: item.event.source,
    time: item.event.time,
    connection: item.connection,
    documentNumber: item.documentNumber,
    note: item.note,
    routes: item.routes,
  };
}

function letterOf(l: DeadLetter) {
  return {
    key: deadLetterKey(l),
    route: l.routeId,
    detailType: l.event['detail-type'],
    eventId: l.event.id,
    attempts: l.attempts,
    error: l.error,
    at: l.at.toISOString(),
    event: l.event,
  };
}

async function bytesOf(archive: ObjectStore, key: string): Promise<Buffer> {
  const body = await archive.get(key);
  if (!body) throw new ConsoleRequestError(404, `key: no object "${key}" in the archive`);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

function keyParam(url: URL): string {
  const key = url.searchParams.get('key');
  if (key === null || !isArchiveKey(key)) {
    throw new ConsoleRequestError(
      400,
      'key: expected an archive key, isdoc/<connection>/<type>/<yyyy>/<mm>/<file>.isdoc (no ".", ".." or empty segment)',
    );
  }
  return key;
}

export async function answerGet(src: ConsoleSources, path: string, url: URL): Promise<Reply> {
  if (path === '/api/events') {
    const filter = parseEventFilter(url.searchParams);
    return { status: 200, json: selectEvents(src.feed.events(), filter).map(summaryOf) };
  }
  if (path.startsWith('/api/events/')) {
    const item = src.feed.event(decodeURIComponent(path.slice('/api/events/'.length)));
    if (!item) throw new ConsoleRequestError(404, 'id: no such event among the latest kept');
    return {
      status: 200,
      json: { ...summaryOf(item), event: item.event, fields: fieldDocs(item.event['detail-type']) },
    };
  }
  if (path === '/api/connections') return { status: 200, json: src.feed.connections() };
  if (path === '/api/deliveries') return { status: 200, json: [...src.feed.attempts()].reverse() };
  if (path === '/api/checkpoints') return { status: 200, json: await src.checkpoints() };
  if (path === '/api/holds') return { status: 200, json: src.holds ? await src.holds.list() : [] };
  if (path === '/api/payments/unmatched') return { status: 200, json: unmatchedPayments(src.feed.events()) };
  if (path === '/api/einvoicing/readiness')
    return { status: 200, json: src.readiness ? await src.readiness() : [] };
  if (path === '/api/dead-letters')
    return { status: 200, json: (await src.deadLetters.list()).map(letterOf) };
  if (path === '/api/archive') {
    const rows = [];
    for await (const info of src.archive.list('isdoc/')) rows.push(archiveEntry(info));
    return { status: 200, json: rows };
  }
  if (path === '/api/archive/isdoc') {
    const view = await readIsdocView(await bytesOf(src.archive, keyParam(url)), src.isdocSchema);
    return { status: 200, json: view };
  }
  if (path === '/api/archive/object') {
    const key = keyParam(url);
    const body = await bytesOf(src.archive, key);
    return { status: 200, body, type: 'application/xml', download: key.split('/').at(-1) ?? 'invoice.isdoc' };
  }
  throw new ConsoleRequestError(404, `path: no ${path}`);
}

/** A replay filter's criteria (without `all`), as the event filter reads them. */
function criteriaOf(filter: { all?: true } | undefined): Record<string, unknown> {
  const { all: _all, ...criteria } = filter ?? {};
  return criteria;
}

export async function answerPost(src: ConsoleSources, path: string, body: unknown): Promise<Reply> {
  if (path === '/api/replay') {
    const input = replayBodySchema.parse(body);
    const items =
      input.id !== undefined
        ? [src.feed.event(input.id)].filter((i): i is FeedEvent => i !== undefined)
        : selectEvents(src.feed.events(), parseEventFilter(criteriaOf(input.filter))).reverse();
    if (items.length === 0) throw new ConsoleRequestError(404, 'id: no such event among the latest kept');
    await src.bus.publish(
      items.map(({ event }) => ({
        source: event.source,
        detailType: event['detail-type'] as DetailType,
        detail: event.detail,
        resources: event.resources,
      })),
    );
    return { status: 200, json: { replayed: items.length } };
  }
  if (path === '/api/holds/release') {
    const input = releaseBodySchema.parse(body);
    if (!src.holds) throw new ConsoleRequestError(404, 'path: this console keeps no holds');
    try {
      const hold = await src.holds.release({ ...input, via: 'console' });
      return { status: 200, json: { released: hold.id, documentNumber: hold.documentNumber } };
    } catch (error) {
      if (error instanceof NoHoldError) throw new ConsoleRequestError(404, error.message, { cause: error });
      throw error;
    }
  }
  if (path === '/api/payments/assign') {
    const input = assignBodySchema.parse(body);
    try {
      const event = assignmentEvent(src.feed.events(), input, systemClock);
      await src.bus.publish([event]);
      return { status: 200, json: { assigned: input.id, target: input.target } };
    } catch (error) {
      if (error instanceof PaymentAssignmentError) {
        throw new ConsoleRequestError(error.status, error.message, { cause: error });
      }
      throw error;
    }
  }
  if (path === '/api/dead-letters/redrive') {
    const input = redriveBodySchema.parse(body);
    const result = await redriveDeadLetters(
      src.deadLetters,
      (l) => input.key === undefined || deadLetterKey(l) === input.key,
      (routeId, events) => src.bus.redeliver(routeId, events),
    );
    if (input.key !== undefined && result.count === 0) {
      throw new ConsoleRequestError(404, 'key: no such dead letter (redriven already?)');
    }
    return { status: 200, json: result };
  }
  throw new ConsoleRequestError(404, `path: no ${path}`);
}
