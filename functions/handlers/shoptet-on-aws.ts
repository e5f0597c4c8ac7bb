/**
 * Shoptet in the import function on AWS: the fetcher with the token of its own secret (read again
 * on rotation), and the reconciliation sweep the function's schedule invokes it for.
 *
 * At most 3 requests per token may be in flight (Shoptet's cap), counted across every container:
 * the intake queue's event source lets at most 2 import invocations run at once
 * (`MaximumConcurrency`, the least AWS allows) and the schedule starts one sweep per interval, so
 * with 1 request in flight per container the token never has more than 3 (docs/intake.md).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import type { AwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { readShoptetToken } from '../adapters/aws/shoptet-token-secret.js';
import { createSqsIntakeQueue } from '../adapters/aws/sqs-intake-queue.js';
import { createRotatingShoptetApi } from '../adapters/http/rotating-shoptet-api.js';
import { createShoptetApi } from '../adapters/http/shoptet-api.js';
import { requireSetting } from '../core/actions/config.js';
import type { IntakeConfig } from '../core/intake/intake-config.js';
import type { ShoptetApi } from '../core/intake/ports.js';
import {
  SWEEP_FIRST_LOOKBACK_SECONDS,
  SWEEP_OVERLAP_SECONDS,
  type SweepCheckpoint,
  type SweepResult,
  sweepShoptetOrders,
} from '../core/intake/shoptet-sweep.js';
import type { Clock, Logger } from '../core/ports.js';
import { ENV } from '../shared/env-names.js';
import { INTAKE_ENV } from '../shared/intake-env-names.js';
import { registerSecretValue } from '../shared/logger.js';

/** Shoptet requests one container has in flight at most (see above). */
export const SHOPTET_IN_FLIGHT_PER_CONTAINER = 1;

/** At most one read of the token secret per this interval after Shoptet refused the token. */
const MIN_REREAD_MS = 10_000;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The fetcher: with `INTAKE_SHOPTET_TOKEN_SECRET`, the token of that secret, kept for
 * `INTAKE_SECRETS_CACHE_SECONDS` and read again after a 401/403; else the environment's token, if any.
 */
export function shoptetApiOnAws(
  env: Env,
  config: IntakeConfig,
  deps: { aws: AwsAdapters; clock: Clock },
): ShoptetApi | undefined {
  const { baseUrl, tokenKind } = config.shoptet;
  const apiFor = (token: string) =>
    createShoptetApi({
      baseUrl,
      token,
      tokenKind,
      sleep: deps.clock.sleep,
      maxInFlight: SHOPTET_IN_FLIGHT_PER_CONTAINER,
    });
  const secretId = env[INTAKE_ENV.shoptetTokenSecret];
  if (!secretId) return config.shoptet.token ? apiFor(config.shoptet.token) : undefined;
  return createRotatingShoptetApi({
    readToken: async () => {
      const token = await readShoptetToken(deps.aws.clients.secretsManager, secretId);
      if (token) registerSecretValue(token); // redacted wherever a log line might carry it
      return token;
    },
    apiFor,
    now: () => deps.clock.now().getTime(),
    ttlMs: config.secretsCacheSeconds * 1000,
    minRereadMs: MIN_REREAD_MS,
  });
}

/** The schedule's input: `{"shoptetSweep": {"scheduledTime": "…"}}`. */
const sweepEventSchema = z.object({
  shoptetSweep: z.object({ scheduledTime: z.string().optional() }),
});

export function isShoptetSweepEvent(event: unknown): boolean {
  return typeof event === 'object' && event !== null && 'shoptetSweep' in event;
}

export class InvalidSweepEventError extends Error {
  override readonly name = 'InvalidSweepEventError';
}

/**
 * One sweep of the deployment's connection: the orders changed since its checkpoint (kept in the
 * idempotency table under its own key, beside the intake records, as the local runtime keeps it)
 * are queued to the intake queue as notices, and the import takes each once.
 */
export function createShoptetSweepRun(
  env: Env,
  config: IntakeConfig,
  deps: { shoptet: ShoptetApi | undefined; aws: AwsAdapters; clock: Clock; logger: Logger },
) {
  const tableName = requireSetting(env[ENV.actionsIdempotencyTable], ENV.actionsIdempotencyTable);
  const queueUrl = requireSetting(env[INTAKE_ENV.queueUrl], INTAKE_ENV.queueUrl);
  const checkpoints = createDynamoDbCheckpointStore<SweepCheckpoint>({
    client: deps.aws.clients.dynamoDb,
    tableName,
    keyAttribute: 'id',
  });
  const queue = createSqsIntakeQueue({ client: new SQSClient({}), queueUrl });
  return async (event: unknown): Promise<SweepResult> => {
    const parsed = sweepEventSchema.safeParse(event);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InvalidSweepEventError(`sweep event: ${issue?.path.join('.')}: ${issue?.message}`);
    }
    if (!deps.shoptet) throw new InvalidSweepEventError('sweep event: no Shoptet API is configured');
    return sweepShoptetOrders({
      shoptet: deps.shoptet,
      checkpoints,
      queue,
      clock: deps.clock,
      logger: deps.logger,
      connection: config.connection,
      webhookUrl: config.shoptet.webhookUrl,
      reregister: config.shoptet.reregisterWebhooks,
      firstLookbackSeconds: SWEEP_FIRST_LOOKBACK_SECONDS,
      overlapSeconds: SWEEP_OVERLAP_SECONDS,
    });
  };
}
