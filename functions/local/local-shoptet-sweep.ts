/**
 * The Shoptet reconciliation sweep in the local runtime: run on demand, and every
 * `INTAKE_SHOPTET_SWEEP_SECONDS` while the intake runs, its checkpoint beside the intake records.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import type { IntakeConfig } from '../core/intake/intake-config.js';
import type { IntakeQueue, ShoptetApi } from '../core/intake/ports.js';
import {
  SWEEP_FIRST_LOOKBACK_SECONDS,
  SWEEP_OVERLAP_SECONDS,
  type SweepCheckpoint,
  type SweepResult,
  sweepShoptetOrders,
} from '../core/intake/shoptet-sweep.js';
import type { Clock, Logger } from '../core/ports.js';

export interface LocalShoptetSweep {
  /** Runs the sweep once; undefined when Shoptet is not configured (no token or no key). */
  run(): Promise<SweepResult | undefined>;
  /** Stops the timer and waits for a sweep under way. */
  stop(): Promise<void>;
}

export function startLocalShoptetSweep(deps: {
  shoptet: ShoptetApi | undefined;
  config: IntakeConfig;
  idempotency: { client: DynamoDBClient; tableName: string };
  queue: IntakeQueue;
  clock: Clock;
  logger: Logger;
  /** The intake's base URL, for the webhook when none is configured. */
  intakeUrl: string;
}): LocalShoptetSweep {
  const { shoptet, config, queue, clock, logger } = deps;
  const run = async (): Promise<SweepResult | undefined> => {
    if (!shoptet || !config.secrets.shoptet) return undefined;
    return sweepShoptetOrders({
      shoptet,
      // The sweep's checkpoint beside the intake records (the same table, its own key).
      checkpoints: createDynamoDbCheckpointStore<SweepCheckpoint>({
        ...deps.idempotency,
        keyAttribute: 'id',
      }),
      queue,
      clock,
      logger,
      connection: config.connection,
      webhookUrl: config.shoptet.webhookUrl ?? `${deps.intakeUrl}/intake/shoptet`,
      reregister: config.shoptet.reregisterWebhooks,
      firstLookbackSeconds: SWEEP_FIRST_LOOKBACK_SECONDS,
      overlapSeconds: SWEEP_OVERLAP_SECONDS,
    });
  };
  let sweeping: Promise<unknown> = Promise.resolve();
  const timer =
    shoptet && config.secrets.shoptet && config.shoptet.sweepSeconds > 0
      ? setInterval(() => {
          sweeping = run().catch((error: unknown) =>
            logger.warn('shoptet sweep failed', { error: error instanceof Error ? error.name : 'unknown' }),
          );
        }, config.shoptet.sweepSeconds * 1000)
      : undefined;
  timer?.unref();
  return {
    run,
    async stop() {
      if (timer) clearInterval(timer);
      await sweeping;
    },
  };
}
