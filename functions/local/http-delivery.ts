/**
 * Local delivery of events to HTTP consumers: each target is a subscriber of the local bus, with
 * its own offset in the bus journal, that POSTs each matching event signed per Standard Webhooks,
 * retried with exponential backoff on network errors, timeouts, 408, 429 and 5xx, and
 * dead-lettered (in the data directory, with the bus's other dead letters) after the policy's last
 * attempt, or at once on another 4xx, as EventBridge API destinations do. A slow consumer holds up
 * no other; an event not delivered when `run` stops is delivered after the next start. The same
 * event keeps its `webhook-id` on every attempt: consumers deduplicate on it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { postSigned } from '../adapters/http/webhook-sender.js';
import type { BusSubscriber, EventBridgeEvent } from '../adapters/local/local-bus.js';
import {
  backoffMs,
  DEFAULT_DELIVERY_POLICY,
  type DeliveryPolicy,
  type DeliveryTarget,
  isRetryableStatus,
} from '../core/delivery/delivery-targets.js';

export type DeliveryOutcome = {
  targetId: string;
  url: string;
  eventId: string;
  detailType: string;
  attempt: number;
  status?: number;
} & ({ result: 'delivered' } | { result: 'retrying' | 'dead-lettered'; error: string });

/** A delivery that gave up: the bus dead-letters the event under the target's id. */
export class DeliveryFailedError extends Error {
  override readonly name = 'DeliveryFailedError';
}

/** A stop cut a delivery short: the event stays in the bus journal for the next start. */
export class DeliveryStoppedError extends Error {
  override readonly name = 'DeliveryStoppedError';
}

export interface HttpDelivery {
  /** One bus subscriber per target (id = the target's id), each with its own journal offset. */
  readonly subscribers: readonly BusSubscriber[];
  /** Cuts backoff waits short; what was not delivered stays journaled for the next start. */
  halt(): void;
}

/**
 * The targets as bus subscribers. One `deliver` call makes every attempt of one event (with the
 * backoff between them); it throws `DeliveryFailedError` after the last one (or a non-retryable
 * status), which the bus — one receive per subscriber — turns into a durable dead letter.
 */
export function createHttpDelivery(options: {
  targets: readonly DeliveryTarget[];
  /** Each target's own signing secret: a consumer's secret signs nothing sent to another. */
  secretFor: (target: DeliveryTarget) => string;
  policy?: Partial<DeliveryPolicy>;
  onOutcome?: (outcome: DeliveryOutcome) => void;
}): HttpDelivery {
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...options.policy };
  const halting = new AbortController();
  const report = options.onOutcome ?? (() => {});

  const deliverOne = async (target: DeliveryTarget, event: EventBridgeEvent): Promise<void> => {
    const body = JSON.stringify(event);
    const secret = options.secretFor(target);
    const base = {
      targetId: target.id,
      // Printed and dead-lettered: the capability in the path and query stays out.
      url: target.label,
      eventId: event.id,
      detailType: event['detail-type'],
    };
    for (let attempt = 1; ; attempt += 1) {
      if (halting.signal.aborted) throw new DeliveryStoppedError('stopping');
      const result = await postSigned({
        url: target.url,
        id: event.id,
        body,
        secret,
        timeoutMs: policy.timeoutMs,
        signal: halting.signal,
      });
      const status = result.status !== undefined ? { status: result.status } : {};
      if (result.ok) {
        report({ ...base, attempt, ...status, result: 'delivered' });
        return;
      }
      if (halting.signal.aborted) throw new DeliveryStoppedError('stopping');
      const retryable = result.status === undefined || isRetryableStatus(result.status);
      if (!retryable || attempt >= policy.maxAttempts) {
        report({ ...base, attempt, ...status, result: 'dead-lettered', error: result.error });
        throw new DeliveryFailedError(`${target.label}: ${result.error} (attempt ${attempt})`);
      }
      report({ ...base, attempt, ...status, result: 'retrying', error: result.error });
      if (!(await pause(backoffMs(policy, attempt + 1), halting.signal))) {
        throw new DeliveryStoppedError('stopping');
      }
    }
  };

  const subscribers = options.targets.map(
    (target): BusSubscriber => ({
      id: target.id,
      // EventBridge content filtering on detail-type: names and prefixes (matched as on AWS).
      ...(target.detailTypes ? { pattern: { 'detail-type': target.detailTypes as string[] } } : {}),
      maxConcurrency: policy.concurrency,
      maxReceiveCount: 1,
      deliver: async (events) => {
        for (const event of events) await deliverOne(target, event);
      },
      stopping: () => halting.signal.aborted,
    }),
  );
  return { subscribers, halt: () => halting.abort() };
}

/** Waits `ms`; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The single secret earlier versions signed every target with (adopted by a lone target). */
export const SIGNING_SECRET_FILE = 'delivery-signing-secret';
/** Directory in the data directory holding one signing secret per target (owner-only). */
export const SIGNING_SECRETS_DIR = 'delivery-secrets';

/** `DELIVERY_SIGNING_SECRET` is set while more than one target would share it. */
export class SharedSigningSecretError extends Error {
  override readonly name = 'SharedSigningSecretError';
}

/** A target's secret file: a hash of its URL (the consumer, whatever order the targets come in). */
export function signingSecretFile(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

/**
 * The signing secret of the target at `url`, one of `targetCount` targets: `DELIVERY_SIGNING_SECRET`
 * when set (one target only: a secret two consumers know lets each forge deliveries to the
 * other), else the target's own in `delivery-secrets/` of the data directory, created on first use
 * (`whsec_` + 24 random bytes, base64) so its consumer keeps verifying across restarts. A lone
 * target adopts the single secret of earlier versions, which its consumer already knows.
 */
export async function signingSecret(
  env: Record<string, string | undefined>,
  dataDir: string,
  url: string,
  targetCount = 1,
): Promise<{ secret: string; source: string }> {
  const fromEnv = env.DELIVERY_SIGNING_SECRET?.trim();
  if (fromEnv) {
    if (targetCount > 1) {
      throw new SharedSigningSecretError(
        `DELIVERY_SIGNING_SECRET would sign all ${targetCount} targets alike; unset it: each target gets its own secret in ${join(dataDir, SIGNING_SECRETS_DIR)}`,
      );
    }
    return { secret: fromEnv, source: 'DELIVERY_SIGNING_SECRET' };
  }
  const dir = join(dataDir, SIGNING_SECRETS_DIR);
  const path = join(dir, signingSecretFile(url));
  const stored = await readSecret(path);
  if (stored) return { secret: stored, source: path };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const legacy = join(dataDir, SIGNING_SECRET_FILE);
  if (targetCount === 1 && (await readSecret(legacy))) {
    await rename(legacy, path);
    return { secret: (await readSecret(path)) as string, source: path };
  }
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: unknown) => {
    // Created meanwhile by another command: that one stands.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  return { secret: (await readSecret(path)) as string, source: path };
}

async function readSecret(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}
