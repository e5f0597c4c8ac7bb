/**
 * The Shoptet reconciliation sweep (scheduled): Shoptet gives a notification up after 3 tries
 * within about 30 minutes and then deactivates the webhook, so an order can be missed. The sweep
 * lists the orders changed since its checkpoint (`GET /api/orders?changeTimeFrom=…`, with an
 * overlap for clocks and in-flight changes) and queues a notice for each; the importer fetches and
 * imports the ones never received, each once (the intake record per order code), and finds the
 * others imported already. The checkpoint advances to the time the listing began, only after every
 * page was queued, by a versioned write (two sweeps racing cannot both advance it). It also checks
 * the shop's webhooks: the intake's order events registered at the intake's URL, reporting the
 * missing ones and, when asked, registering them.
 */
import { CheckpointConflictError } from '../errors.js';
import type { CheckpointStore, Clock, Logger } from '../ports.js';
import type { IntakeQueue, ShoptetApi } from './ports.js';
import {
  noticeDeduplicationId,
  orderCodeSchema,
  type ShoptetNoticeMessage,
  SWEEP_EVENT,
  shoptetOrderEvents,
} from './shoptet-notification.js';

export interface SweepCheckpoint {
  /** ISO time: orders changed at or after it are listed by the next sweep. */
  since: string;
}

export interface ShoptetSweepDeps {
  shoptet: ShoptetApi;
  checkpoints: CheckpointStore<SweepCheckpoint>;
  queue: IntakeQueue;
  clock: Clock;
  logger: Logger;
  connection: string;
  /** The intake's URL for Shoptet (`…/intake/shoptet`): its webhooks are checked when set. */
  webhookUrl?: string | undefined;
  /** Register the missing webhooks (else only report them). */
  reregister: boolean;
  /** How far back the first sweep looks. */
  firstLookbackSeconds: number;
  /** How far before the checkpoint each sweep lists again (clock skew, changes in flight). */
  overlapSeconds: number;
}

export interface SweepResult {
  since: string;
  listed: number;
  queued: number;
  missingWebhooks: string[];
  registeredWebhooks: string[];
}

/** The first sweep lists the orders changed in the last day; each later one overlaps the last by 5 minutes. */
export const SWEEP_FIRST_LOOKBACK_SECONDS = 24 * 3600;
export const SWEEP_OVERLAP_SECONDS = 300;

/** Most pages one sweep reads (50 orders each); the rest waits for the next sweep. */
const MAX_PAGES = 200;

/** Shoptet's date-time in a query: `2018-05-29T09:02:27+0000`. */
function shoptetTime(at: Date): string {
  return `${at.toISOString().slice(0, 19)}+0000`;
}

export function sweepCheckpointKey(connection: string): string {
  return `shoptet-sweep#${connection}`;
}

async function checkWebhooks(
  deps: ShoptetSweepDeps,
): Promise<Pick<SweepResult, 'missingWebhooks' | 'registeredWebhooks'>> {
  const url = deps.webhookUrl;
  if (!url) return { missingWebhooks: [], registeredWebhooks: [] };
  const hooks = await deps.shoptet.listWebhooks();
  const missing = shoptetOrderEvents.filter(
    (event) => !hooks.some((h) => h.event === event && h.url === url),
  );
  if (missing.length === 0) return { missingWebhooks: [], registeredWebhooks: [] };
  deps.logger.warn('shoptet webhooks missing', { connection: deps.connection, events: missing });
  if (!deps.reregister) return { missingWebhooks: missing, registeredWebhooks: [] };
  const made = await deps.shoptet.registerWebhooks(missing.map((event) => ({ event, url })));
  deps.logger.info('shoptet webhooks registered', {
    connection: deps.connection,
    events: made.map((h) => h.event),
  });
  return { missingWebhooks: missing, registeredWebhooks: made.map((h) => h.event) };
}

export async function sweepShoptetOrders(deps: ShoptetSweepDeps): Promise<SweepResult> {
  const key = sweepCheckpointKey(deps.connection);
  const started = deps.clock.now();
  const stored = await deps.checkpoints.get(key);
  const since = stored
    ? new Date(Date.parse(stored.value.since) - deps.overlapSeconds * 1000)
    : new Date(started.getTime() - deps.firstLookbackSeconds * 1000);
  const receivedAt = started.toISOString();
  let listed = 0;
  let queued = 0;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const result = await deps.shoptet.listOrders({ changeTimeFrom: shoptetTime(since), page });
    for (const order of result.orders) {
      listed += 1;
      const code = orderCodeSchema.safeParse(order.code);
      if (!code.success) {
        deps.logger.warn('shoptet order code refused', { connection: deps.connection });
        continue;
      }
      const notice = {
        event: SWEEP_EVENT,
        code: code.data,
        eventCreated: order.changeTime ?? receivedAt,
      } as const;
      const deliveryId = noticeDeduplicationId(notice).slice(0, 128);
      const message: ShoptetNoticeMessage = {
        version: 1,
        connection: deps.connection,
        source: 'shoptet',
        deliveryId,
        receivedAt,
        notice,
      };
      await deps.queue.send(message, { deduplicationId: deliveryId, groupId: `shoptet:${code.data}` });
      queued += 1;
    }
    if (page >= result.pageCount) break;
  }
  const webhooks = await checkWebhooks(deps);
  try {
    await deps.checkpoints.put(key, { since: receivedAt }, stored?.version);
  } catch (error) {
    if (!(error instanceof CheckpointConflictError)) throw error;
    // Another sweep advanced it meanwhile: what this one queued is deduplicated by the import.
    deps.logger.warn('shoptet sweep checkpoint moved by another sweep', { connection: deps.connection });
  }
  const result = { since: since.toISOString(), listed, queued, ...webhooks };
  deps.logger.info('shoptet sweep done', { connection: deps.connection, ...result });
  return result;
}
