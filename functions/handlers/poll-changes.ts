/**
 * Poller Lambda, invoked by the schedule: polls the configured collections with bounded
 * concurrency, publishes one event per change, and returns a summary. Dependencies (client,
 * DynamoDB checkpoints, EventBridge publisher, S3 claim-check store) are built once per container.
 *
 * Metrics (Powertools, EMF; the per-detail-type and per-collection dimensions only with
 * `POLLER_DETAILED_METRICS=true`, else folded: see poll-metrics.ts): `EventsPublished` per
 * detail-type, `ApiRequests`, `RateLimited` (429s), `WatermarkLagMs` per collection (how stale the published view may be: now − the service's time
 * when the last complete read of the collection began, `freshnessLagMs`; includes clock skew),
 * `CollectionsFailed`, `CollectionsUnavailable` (a collection answered 404: reported once per run,
 * then skipped; one run is the life of this handler — a Lambda container, or the local runtime).
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import * as z from 'zod';
import type { AccountingApi } from '../accounting/api.js';
import { createAccountingClient } from '../accounting/client.js';
import { createAwsAdapters } from '../adapters/aws/adapter-config.js';
import { addLambdaContext, LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import type { CheckpointStore, Clock, EventPublisher, Logger, ObjectStore } from '../core/ports.js';
import { type PollAllSummary, pollAll } from '../core/sync/poll-all.js';
import { collectionListSchema } from '../core/sync/poll-options.js';
import { freshnessLagMs } from '../core/sync/sync-types.js';
import { systemClock } from '../shared/clock.js';
import { lazyHandler } from './lazy-handler.js';
import { createPowertoolsPollMetrics, type PollMetrics, pollMetricsOptionsFromEnv } from './poll-metrics.js';
import { loadPollerRuntimeConfig, type PollerSettings } from './poller-config.js';

export { createPowertoolsPollMetrics, type PollMetrics } from './poll-metrics.js';

export interface PollHandlerDeps {
  api: AccountingApi & { stats?(): { requests: number; rateLimited: number } };
  checkpoints: CheckpointStore<unknown>;
  publisher: EventPublisher;
  objectStore?: ObjectStore;
  clock: Clock;
  logger: Logger;
  settings: PollerSettings;
  metrics?: PollMetrics;
}

export interface PollChangesSummary {
  published: number;
  requests: number;
  rateLimited: number;
  failed: number;
  conflicts: number;
  unavailable: number;
  more: boolean;
  collections: Array<{
    collection: string;
    status: string;
    published: number;
    requests: number;
    more: boolean;
    watermark?: string;
    lagMs?: number;
    error?: { name: string; message: string; status?: number };
  }>;
}

/** Optional input: a manual run may name the collections; scheduler payloads pass through. */
const inputSchema = z.looseObject({ collections: collectionListSchema.optional() });

/** Time kept back at the end of an invocation for logs, metrics and the summary. */
const ABORT_MARGIN_MS = 3_000;

export interface LambdaContextLike {
  getRemainingTimeInMillis(): number;
  /**
   * Not in Lambda's context: a caller that stops the poll itself (the local runtime on Ctrl-C) passes
   * its signal, which then aborts the running requests instead of the end-of-invocation timeout.
   */
  abortSignal?: AbortSignal;
}

export function createHandler(deps: PollHandlerDeps) {
  const unavailable = new Set<string>();
  return async (event: unknown, context?: LambdaContextLike): Promise<PollChangesSummary> => {
    addLambdaContext(deps.logger, context);
    const input = inputSchema.safeParse(event ?? {});
    if (!input.success) {
      // Bad input: say which field and change nothing.
      deps.logger.error('poll input rejected', {
        issues: input.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      });
      throw new Error(`invalid poll input: ${input.error.issues.map((i) => i.message).join('; ')}`);
    }
    const collections = input.data.collections ?? deps.settings.collections;
    const before = deps.api.stats?.();
    const summary = await pollAll(
      {
        api: deps.api,
        checkpoints: deps.checkpoints,
        publisher: deps.publisher,
        clock: deps.clock,
        logger: deps.logger,
        unavailable,
        ...(deps.objectStore ? { objectStore: deps.objectStore } : {}),
        ...(context
          ? {
              remainingTimeMs: () => context.getRemainingTimeInMillis(),
              // Requests still running shortly before the function's end are aborted: their page is
              // neither published nor checkpointed, and the next run reads it again.
              signal:
                context.abortSignal ??
                AbortSignal.timeout(Math.max(0, context.getRemainingTimeInMillis() - ABORT_MARGIN_MS)),
            }
          : {}),
      },
      deps.settings.options,
      collections,
      deps.settings.concurrency,
    );
    const after = deps.api.stats?.();
    const result = summarize(summary, deps.clock.now().getTime(), before, after);
    report(deps, summary, result);
    return result;
  };
}

function summarize(
  summary: PollAllSummary,
  nowMs: number,
  before: { requests: number; rateLimited: number } | undefined,
  after: { requests: number; rateLimited: number } | undefined,
): PollChangesSummary {
  return {
    published: summary.published,
    requests: before && after ? after.requests - before.requests : summary.requests,
    rateLimited: before && after ? after.rateLimited - before.rateLimited : 0,
    failed: summary.failed,
    conflicts: summary.conflicts,
    unavailable: summary.unavailable,
    more: summary.more,
    collections: summary.collections.map((c) => ({
      collection: c.collection,
      status: c.status,
      published: c.published,
      requests: c.requests,
      more: c.more,
      ...(c.watermark !== undefined ? { watermark: c.watermark } : {}),
      ...lagOf(c, nowMs),
      ...(c.error ? { error: c.error } : {}),
    })),
  };
}

function lagOf(c: Parameters<typeof freshnessLagMs>[0], nowMs: number): { lagMs?: number } {
  const lagMs = freshnessLagMs(c, nowMs);
  return lagMs === undefined ? {} : { lagMs };
}

function report(deps: PollHandlerDeps, summary: PollAllSummary, result: PollChangesSummary): void {
  const m = deps.metrics;
  if (m) {
    const perType = new Map<string, number>();
    for (const c of summary.collections) {
      for (const [type, n] of Object.entries(c.events)) perType.set(type, (perType.get(type) ?? 0) + n);
    }
    for (const [detailType, n] of perType) m.count('EventsPublished', n, { detailType });
    m.count('ApiRequests', result.requests);
    m.count('RateLimited', result.rateLimited);
    m.count('CollectionsFailed', result.failed + result.conflicts);
    m.count('CollectionsUnavailable', result.unavailable);
    for (const c of result.collections) {
      if (c.status === 'unavailable') m.count('CollectionUnavailable', 1, { collection: c.collection });
    }
    for (const c of result.collections) {
      if (c.lagMs !== undefined) m.milliseconds('WatermarkLagMs', c.lagMs, { collection: c.collection });
    }
    m.flush();
  }
  deps.logger.info('poll finished', {
    published: result.published,
    requests: result.requests,
    rateLimited: result.rateLimited,
    failed: result.failed,
    conflicts: result.conflicts,
    more: result.more,
    collections: result.collections.map((c) => ({
      collection: c.collection,
      status: c.status,
      published: c.published,
      more: c.more,
      lagMs: c.lagMs,
      ...(c.error ? { error: c.error.name, httpStatus: c.error.status } : {}),
    })),
  });
}

/** Builds the handler's dependencies from the environment (once per container). */
export async function createDepsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<PollHandlerDeps> {
  const config = loadPollerRuntimeConfig(env);
  const logger = new LambdaLogger({
    level: config.logLevel,
    service: 'poll-changes',
    context: { connection: config.poller.options.connection },
  });
  const clock = systemClock;
  const aws = createAwsAdapters(config.adapters, { clock, logger, instrument: instrumentClient });
  const secrets = config.credentialsFromSecret ? aws.secretSource() : undefined;
  const secretValues = secrets ? await secrets.get() : {};
  const api = createAccountingClient(config.accounting(secretValues), {
    clock,
    logger,
    // After an authentication failure: the secret again, past its cache (it may have been replaced).
    ...(secrets
      ? {
          reloadCredentials: async () =>
            config.accounting(secrets.refresh ? await secrets.refresh() : await secrets.get()).credentials,
        }
      : {}),
  });
  return {
    api,
    checkpoints: aws.checkpoints(),
    publisher: aws.publisher(),
    objectStore: aws.claimCheckStore(),
    clock,
    logger,
    settings: config.poller,
    metrics: createPowertoolsPollMetrics(
      new Metrics({
        namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? 'AccountingEvents',
        serviceName: 'poll-changes',
      }),
      pollMetricsOptionsFromEnv(env),
    ),
  };
}

/** The Lambda entry point. A failed build (e.g. Secrets Manager unreachable) is retried next time. */
export const handler = lazyHandler(async () => createHandler(await createDepsFromEnv(process.env)));
