/**
 * The benchmark's idle cycles with payment detection on (POLLER_PAYMENTS=true): the requests the
 * payment lists cost when nothing changes, checking every cycle and on a slower cadence
 * (POLLER_PAYMENT_INTERVAL_SECONDS). The poller's clock is a manual one, moved on by the poll
 * interval after each cycle; the sandbox keeps its own.
 */
import type { CollectionName } from '../functions/accounting/collections.js';
import type { PollAllSummary } from '../functions/core/sync/poll-all.js';
import { createManualClock } from '../functions/shared/clock.js';
import { createBenchPoller } from './poller-deps.js';
import type { BenchResults } from './results.js';
import { round } from './stats.js';

export type IdlePaymentFigures = NonNullable<BenchResults['idle']['payments']>;

const POLL_INTERVAL_SECONDS = 5;
const PAYMENT_INTERVAL_SECONDS = 60;

/** Requests of the payment lists (`<collection>/Unpaid`) in one cycle's summary. */
function paymentRequests(summary: PollAllSummary): number {
  return summary.collections
    .filter((c) => c.collection.endsWith('/Unpaid'))
    .reduce((n, c) => n + c.requests, 0);
}

export async function measureIdlePayments(options: {
  baseUrl: string;
  apiKey: string;
  collections: readonly CollectionName[];
  pageSize: number;
  /** Idle cycles checking payment state every cycle. */
  cycles: number;
  /** Whole payment cadences measured at the slower cadence (12 polls each). */
  cadenceRounds: number;
  log?: (line: string) => void;
}): Promise<IdlePaymentFigures> {
  const paymentLists = options.collections.filter(
    (c) => c === 'IssuedInvoices' || c === 'IssuedAdvanceInvoices',
  ).length;
  if (paymentLists === 0) throw new Error('measureIdlePayments: no payable collection among the polled ones');
  const measure = async (paymentIntervalMs: number, count: number) => {
    const clock = createManualClock({ start: new Date().toISOString() });
    const poller = createBenchPoller({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      collections: options.collections,
      pageSize: options.pageSize,
      clock,
      poll: { payments: true, paymentIntervalMs },
    });
    try {
      // The first cycles read everything (the baseline); idle cycles follow.
      while ((await poller.cycle()).more) clock.advance(POLL_INTERVAL_SECONDS * 1000);
      clock.advance(POLL_INTERVAL_SECONDS * 1000);
      let payment = 0;
      let total = 0;
      for (let i = 0; i < count; i += 1) {
        const before = poller.requests();
        payment += paymentRequests(await poller.cycle());
        total += poller.requests() - before;
        clock.advance(POLL_INTERVAL_SECONDS * 1000);
      }
      return { payment: payment / count / paymentLists, total: total / count };
    } finally {
      await poller.close();
    }
  };
  const every = await measure(0, options.cycles);
  const slowCycles = (PAYMENT_INTERVAL_SECONDS / POLL_INTERVAL_SECONDS) * options.cadenceRounds;
  const slower = await measure(PAYMENT_INTERVAL_SECONDS * 1000, slowCycles);
  options.log?.(
    `idle with payments: ${round(every.payment, 3)} requests per payment list per cycle (${round(every.total, 3)} per cycle in all); checked every ${PAYMENT_INTERVAL_SECONDS} s at a ${POLL_INTERVAL_SECONDS} s poll: ${round(slower.payment, 3)}`,
  );
  return {
    paymentLists,
    cycles: options.cycles,
    requestsPerPaymentListPerCycle: round(every.payment, 3),
    requestsPerCycle: round(every.total, 3),
    slowerCadence: {
      pollIntervalSeconds: POLL_INTERVAL_SECONDS,
      paymentIntervalSeconds: PAYMENT_INTERVAL_SECONDS,
      cycles: slowCycles,
      requestsPerPaymentListPerCycle: round(slower.payment, 3),
    },
  };
}
