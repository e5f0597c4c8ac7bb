/**
 * kill -9 during payment polling loses nothing: `run` (a child process) polls the payment lists of
 * a sandbox that outlives it; the sandbox holds the answer to an `…/Unpaid` read (a latency fault on
 * that path) and, once the read has arrived, the child is killed with SIGKILL — mid-poll, its events
 * for those payments not yet published. More payments are made while it is down; a second `run` on
 * the same data directory must publish every payment of the sandbox's ground truth, duplicates
 * bounded and each carrying the same idempotency key as its first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkPaymentEvents, paymentTruthSchema } from '#bench/payment-check.js';
import { pollSpans, readEvents, startRun, until } from '#bench/payments-run.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

let sandbox: Sandbox;
let dir: string;
const PAGE_SIZE = 100;
// Two child processes and four bounded waits (90 + 60 + 90 + 60 s, each only there to end a broken
// run): the test needs the sum, not the default 30 s.
const TEST_TIMEOUT_MS = 330_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-payments-kill-'));
  sandbox = await startSandbox({
    seed: 3,
    sizes: { documents: 120, partners: 15, perCollection: { IssuedInvoices: 40, IssuedAdvanceInvoices: 20 } },
    activity: {
      enabled: false,
      ratePerSecond: 1,
      weights: { createOrder: 0, editDocument: 0, issueInvoice: 0, payInvoice: 1, moveDueDate: 0 },
    },
  });
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function pay(count: number): void {
  for (let i = 0; i < count; i++) sandbox.server.activity.tick(sandbox.server.domain);
}

const unpaidReads = () => {
  const counts = sandbox.server.requestCounts().byEndpoint;
  return (counts['IssuedInvoices.unpaid'] ?? 0) + (counts['IssuedAdvanceInvoices.unpaid'] ?? 0);
};

it(
  'a run killed with SIGKILL while reading an unpaid list publishes every payment after its restart',
  async () => {
    const eventsFile = join(dir, 'events.jsonl');
    const args = [
      '--no-sandbox',
      '--base-url',
      sandbox.baseUrl,
      '--json',
      '--no-console',
      '--no-actions',
      '--data-dir',
      join(dir, 'data'),
      '--events-out',
      eventsFile,
      '--interval',
      '300ms',
      '--collections',
      'IssuedInvoices,IssuedAdvanceInvoices',
    ];
    const env = { POLLER_PAYMENTS: 'true', ACCOUNTING_API_KEY: sandbox.credentials.apiKey };
    const first = startRun(args, env, dir);
    await until(
      'the first poll (the payment baseline)',
      first,
      () => first.updates.find((u) => u.kind === 'poll'),
      90_000,
    );

    // The next read of an unpaid list is held (for far longer than the kill takes to follow its
    // arrival, even on a busy machine); payments make the detector read one.
    sandbox.setFaults({
      latency: { baseMs: 60_000, jitterMs: 0, distribution: 'uniform' },
      pathPattern: '/Unpaid$',
    });
    const reads = unpaidReads();
    pay(12);
    const made = sandbox.server.domain.liquidations.payments.length;
    expect(made).toBeGreaterThan(5);
    await until(
      'an unpaid list read in flight',
      first,
      () => (unpaidReads() > reads ? true : undefined),
      60_000,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const reportedAtKill = checkPaymentEvents(
      await readEvents(eventsFile),
      paymentTruthSchema.parse({ payments: sandbox.server.domain.liquidations.payments, dueDatePasses: [] }),
      [],
    );
    // Killed mid-poll: some of the payments were not published yet.
    expect(reportedAtKill.missed).toBeGreaterThan(0);

    sandbox.setFaults({ latency: null, pathPattern: '^/v1/' });
    pay(8);
    const second = startRun(args, env, dir);
    const truth = () => {
      sandbox.server.domain.liquidations.sweepOverdue();
      return paymentTruthSchema.parse({
        payments: sandbox.server.domain.liquidations.payments,
        dueDatePasses: sandbox.server.domain.liquidations.dueDatePasses,
      });
    };
    const check = async () =>
      checkPaymentEvents(await readEvents(eventsFile), truth(), [
        ...pollSpans(first.updates),
        ...pollSpans(second.updates),
      ]);
    let last = reportedAtKill;
    await until(
      'every payment published after the restart',
      second,
      async () => {
        last = await check();
        return last.missed === 0 ? true : undefined;
      },
      90_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; still: ${last.problems.join('; ')}`, { cause: error });
    });
    // Two more polls: nothing else comes.
    const polled = pollSpans(second.updates).length;
    await until(
      'two more polls',
      second,
      () => (pollSpans(second.updates).length >= polled + 2 ? true : undefined),
      60_000,
    );
    const final = await check();
    console.info(JSON.stringify({ madeBeforeKill: made, missedAtKill: reportedAtKill.missed, ...final }));
    expect(final.problems).toEqual([]);
    expect({ missed: final.missed, wrong: final.wrong }).toEqual({ missed: 0, wrong: 0 });
    expect(final.liquidations.total).toBe(sandbox.server.domain.liquidations.payments.length);
    // Duplicates only from the kill: at most one page's events, each the same event under the same
    // key (the check counts two different events under one key as wrong).
    expect(final.duplicates).toBeLessThanOrEqual(PAGE_SIZE);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(130);
  },
  TEST_TIMEOUT_MS,
);
