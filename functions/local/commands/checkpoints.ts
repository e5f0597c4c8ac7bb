import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { inspectDataDirLock } from '#functions/adapters/local/data-dir-lock.js';
import {
  type CollectionCheckpoint,
  collectionCheckpointSchema,
} from '#functions/core/sync/checkpoint-state.js';
import { paymentCheckpointSchema } from '#functions/core/sync/payment-state.js';
import { type CheckpointRow, formatCheckpoints } from '../checkpoints-table.js';
import { defineCommand, noPositionals } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { LOCAL_RESOURCES, type LocalStores, startLocalStores } from '../local-stores.js';
import { type CollectionStatus, type PollStatus, readPollStatus } from '../poll-status.js';
import { UsageError } from '../usage-error.js';
import { DEFAULT_DATA_DIR } from './shared-flags.js';

export type { CheckpointRow } from '../checkpoints-table.js';

export const checkpointsCommand = defineCommand({
  name: 'checkpoints',
  summary: 'Per connection and collection: the watermark, its lag, the last poll and the last error.',
  description: [
    'Watermark: the newest ModifiedDate published (every change up to it is published). Lag: how stale the published view may be, the time since the last complete read of the collection began (a collection without recent changes is not behind).',
    'While `run` holds the data directory, the figures come from its last poll (poll-status.json).',
    'At 80 columns: each connection on a line of its own, its collections under it; the watermark to the second, the last poll as its age, a last error on the lines under its row. --wide: one row per collection, every value whole.',
  ].join('\n'),
  flags: {
    'data-dir': {
      type: 'string',
      value: 'DIR',
      description: 'Data directory of the local runtime.',
      defaultHelp: DEFAULT_DATA_DIR,
    },
    json: { type: 'boolean', description: 'One JSON object per line.' },
    wide: {
      type: 'boolean',
      description: 'One row per collection, every value whole, however wide (80 columns otherwise).',
    },
  },
  schema: z.object({
    'data-dir': z.string().min(1, { message: 'expected a directory path' }).default(DEFAULT_DATA_DIR),
    json: z.boolean().default(false),
    wide: z.boolean().default(false),
    positionals: noPositionals,
  }),
  async run(o, ctx) {
    const dir = resolve(ctx.cwd, o['data-dir']);
    if (!existsSync(dir)) {
      throw new UsageError(
        `--data-dir: no data directory at ${dir} (the runtime creates it on its first start)`,
        'checkpoints',
      );
    }
    const status = await readPollStatus(dir);
    const owner = await inspectDataDirLock(dir);
    let rows: CheckpointRow[];
    if (owner) {
      rows = fromStatus(status);
      if (!o.json) {
        ctx.stderr.write(
          `note: ${dir} is in use by process ${owner.pid}${owner.command ? ` (${owner.command})` : ''}: the figures of its last poll\n`,
        );
      }
    } else {
      const stores = await startLocalStores(dir, 'checkpoints');
      try {
        rows = await checkpointRows(stores, status);
      } finally {
        await stores.close();
      }
    }
    if (o.json) for (const row of rows) ctx.stdout.write(`${JSON.stringify(row)}\n`);
    else ctx.stdout.write(formatCheckpoints(rows, { wide: o.wide, now: new Date() }));
    return EXIT.ok;
  },
});

function fromStatus(status: PollStatus): CheckpointRow[] {
  return Object.entries(status).flatMap(([connection, collections]) =>
    Object.entries(collections).map(([collection, s]) => ({ connection, collection, ...s })),
  );
}

/** The checkpoints as stored (the truth for the watermark), with the last poll and error of the status file. */
export async function checkpointRows(stores: LocalStores, status: PollStatus): Promise<CheckpointRow[]> {
  const rows: CheckpointRow[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stores.servers.dynamoDb.send(
      new ScanCommand({
        TableName: LOCAL_RESOURCES.checkpointTable,
        ...(start ? { ExclusiveStartKey: start as never } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const key = item.pk?.S ?? '';
      const hash = key.indexOf('#');
      if (hash < 0) continue;
      const [connection, collection] = [key.slice(0, hash), key.slice(hash + 1)];
      let value: unknown;
      try {
        value = JSON.parse(item.value?.S ?? '');
      } catch {
        continue;
      }
      // A payment detector's checkpoint (`<collection>/Unpaid`) shows its watermark the same way.
      const checkpoint = collection.endsWith('/Unpaid')
        ? paymentCheckpointSchema.safeParse(value)
        : collectionCheckpointSchema.safeParse(value);
      if (!checkpoint.success) continue;
      const seen = status[connection]?.[collection];
      rows.push({
        connection,
        collection,
        ...(checkpoint.data.watermark ? { watermark: checkpoint.data.watermark } : {}),
        ...lagOf(checkpoint.data, seen),
        ...(seen?.lastPollAt ? { lastPollAt: seen.lastPollAt } : {}),
        ...(seen?.lastError ? { lastError: seen.lastError } : {}),
        ...(seen?.lastErrorAt ? { lastErrorAt: seen.lastErrorAt } : {}),
      });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return rows.sort(
    (a, b) => a.connection.localeCompare(b.connection) || a.collection.localeCompare(b.collection),
  );
}

/**
 * The lag the last poll reported (how stale the published view was then), aged by the time since;
 * without a poll status, the age of the watermark.
 */
function lagOf(
  checkpoint: Pick<CollectionCheckpoint, 'watermarkMs'>,
  seen: CollectionStatus | undefined,
): { lagMs?: number } {
  const now = Date.now();
  if (seen?.lagMs !== undefined)
    return { lagMs: seen.lagMs + Math.max(0, now - Date.parse(seen.lastPollAt)) };
  return checkpoint.watermarkMs === undefined ? {} : { lagMs: now - checkpoint.watermarkMs };
}
