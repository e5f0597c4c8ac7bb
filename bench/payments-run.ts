/**
 * The payments proof: `run` (the CLI, as `npm start` runs it, with its own sandbox and every action)
 * in a child process with POLLER_PAYMENTS=true. Once its first poll recorded the payment baseline,
 * the sandbox's activity generator starts, paying invoices quickly (full, partial, over, under,
 * after the due date) and extending payment terms; after the span it stops, the run polls twice
 * more, and the payment events of `--events-out` are compared with the sandbox's ground truth
 * (`GET /_sandbox/payments`, `payment-check.ts`). The child is then stopped with SIGINT.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPaymentEvents, type PaymentCheck, type PollSpan, paymentTruthSchema } from './payment-check.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'accounting-events.js');

/** The generator's weights for the proof: mostly payments, some new invoices and extended terms. */
export const PROOF_WEIGHTS = 'payInvoice=6,moveDueDate=1,createOrder=2,issueInvoice=2,editDocument=0.5';

export interface PaymentsRunOptions {
  /** How long the generator makes payments. */
  spanMs: number;
  /** Generator actions per second. */
  ratePerSecond: number;
  /** The run's poll interval (`--interval`). */
  intervalMs: number;
  /** Sandbox variant (`sk` or `cz`). */
  variant?: 'sk' | 'cz';
  /** Longest wait for the run to start, poll and settle. */
  waitMs?: number;
  log?: (line: string) => void;
}

export interface PaymentsRunResult extends PaymentCheck {
  spanMs: number;
  ratePerSecond: number;
  intervalMs: number;
  variant: string;
  polls: number;
  /** Exit code of the run after SIGINT (130 is a clean stop). */
  exitCode: number | null;
}

export interface RunChild {
  child: ChildProcess;
  updates: Record<string, unknown>[];
  stderr: string[];
  exited: Promise<number | null>;
}

/** `accounting-events run ARGS` in a child process, its JSON updates parsed as they come. */
export function startRun(args: string[], env: Record<string, string>, cwd: string): RunChild {
  const child = spawn(process.execPath, [BIN, 'run', ...args], {
    cwd,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const updates: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      try {
        updates.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not an update line
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, updates, stderr, exited };
}

/** Waits until `probe` answers, checking every 50 ms; fails when the child exits or after `ms`. */
export async function until<T>(
  what: string,
  run: { child: ChildProcess; stderr: string[] },
  probe: () => T | undefined | Promise<T | undefined>,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (run.child.exitCode !== null) {
      throw new Error(
        `run exited (${run.child.exitCode}) while waiting for ${what}: ${run.stderr.join('').slice(-2000)}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The `poll` updates of a run: when each started and how long it took. */
export function pollSpans(updates: readonly Record<string, unknown>[]): PollSpan[] {
  return updates
    .filter((u) => u.kind === 'poll')
    .map((u) => ({ atMs: Date.parse(String(u.at)), durationMs: Number(u.durationMs) }));
}

async function admin(service: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${service}/_sandbox/${path}`, {
    method,
    ...(body !== undefined
      ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  if (!res.ok) throw new Error(`sandbox ${method} /_sandbox/${path} answered ${res.status}`);
  return res.json();
}

/** Reads an `--events-out` file (one JSON event a line). */
export async function readEvents(file: string): Promise<{ 'detail-type': string; detail: unknown }[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { 'detail-type': string; detail: unknown });
}

export async function runPaymentsProof(options: PaymentsRunOptions): Promise<PaymentsRunResult> {
  const log = options.log ?? (() => {});
  const waitMs = options.waitMs ?? 180_000;
  const variant = options.variant ?? 'sk';
  const dir = await mkdtemp(join(tmpdir(), 'accounting-events-payments-'));
  const eventsFile = join(dir, 'events.jsonl');
  const run = startRun(
    [
      '--json',
      '--no-console',
      '--data-dir',
      join(dir, 'data'),
      '--events-out',
      eventsFile,
      '--interval',
      `${options.intervalMs}ms`,
    ],
    {
      POLLER_PAYMENTS: 'true',
      // The generator starts after the payment baseline (below), with these weights.
      SANDBOX_ACTIVITY: '0',
      SANDBOX_ACTIVITY_WEIGHTS: PROOF_WEIGHTS,
      SANDBOX_VARIANT: variant,
    },
    dir,
  );
  try {
    const started = await until(
      'the run to start',
      run,
      () => run.updates.find((u) => u.kind === 'started'),
      waitMs,
    );
    const service = String(started.service);
    await until(
      'the first poll (the payment baseline)',
      run,
      () => run.updates.find((u) => u.kind === 'poll'),
      waitMs,
    );
    log(`baseline polled; generator on at ${options.ratePerSecond}/s for ${options.spanMs} ms`);
    const startedAtMs = Date.now();
    await admin(service, 'POST', 'activity/start', { ratePerSecond: options.ratePerSecond });
    await new Promise((resolve) => setTimeout(resolve, options.spanMs));
    await admin(service, 'POST', 'activity/stop');
    const stoppedAt = Date.now();
    // Two whole polls after the last change: everything made is visible to the poller.
    await until(
      'two polls after the generator stopped',
      run,
      () => (pollSpans(run.updates).filter((p) => p.atMs > stoppedAt).length >= 2 ? true : undefined),
      waitMs,
    );
    const truth = paymentTruthSchema.parse(await admin(service, 'GET', 'payments'));
    run.child.kill('SIGINT');
    const exitCode = await run.exited;
    const check = checkPaymentEvents(
      await readEvents(eventsFile),
      truth,
      pollSpans(run.updates),
      startedAtMs,
    );
    return {
      spanMs: options.spanMs,
      ratePerSecond: options.ratePerSecond,
      intervalMs: options.intervalMs,
      variant,
      polls: pollSpans(run.updates).length,
      exitCode,
      ...check,
    };
  } finally {
    if (run.child.exitCode === null) {
      run.child.kill('SIGKILL');
      await run.exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}
