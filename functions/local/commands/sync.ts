import { resolve } from 'node:path';
import * as z from 'zod';
import type { CollectionName } from '#functions/accounting/collections.js';
import { createLogger } from '#functions/shared/logger.js';
import type { CommandContext } from '../command.js';
import { defineCommand, durationFlag, noPositionals } from '../command.js';
import { dryRunSync } from '../dry-run.js';
import { loadDotEnv } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { fitLogLine, plainWidth } from '../live-view.js';
import { ONCE_POLL_BUDGET_MS } from '../runtime-options.js';
import { wrapText } from '../wrap-text.js';
import {
  checkedSettings,
  pollUntilCaughtUp,
  runtimeSettingsProblems,
  startRuntimeForCommand,
  withRuntime,
} from './runtime-command.js';
import {
  collectionsFlag,
  collectionsSchema,
  connectionFlags,
  connectionSchemaShape,
  eventsOutFlag,
  eventsOutSchema,
  toConnection,
} from './shared-flags.js';

export const syncCommand = defineCommand({
  name: 'sync',
  summary:
    'Poll for changes and publish events (no actions unless --actions); --once for one cycle, --dry-run to preview.',
  description:
    'With --once: one poll of every collection (continued until caught up), then a summary per event type.\nWithout: polls on --interval until Ctrl-C or --duration.',
  flags: {
    ...connectionFlags,
    ...collectionsFlag,
    once: {
      type: 'boolean',
      description: 'One poll cycle (until caught up), then stop. Publishes and advances the checkpoints.',
    },
    'dry-run': {
      type: 'boolean',
      description:
        'With --once: print what would be published (from the saved checkpoints) and change nothing: no event, no checkpoint, no file.',
    },
    interval: {
      type: 'string',
      value: 'DURATION',
      description: 'Time between polls without --once.',
      defaultHelp: '5s',
    },
    duration: {
      type: 'string',
      value: 'DURATION',
      description: 'Stop cleanly after this long (without --once).',
    },
    actions: {
      type: 'boolean',
      description: 'Also run the actions on the events (off by default for sync).',
    },
    ...eventsOutFlag,
  },
  schema: z
    .object({
      ...connectionSchemaShape,
      collections: collectionsSchema.optional(),
      once: z.boolean().default(false),
      'dry-run': z.boolean().default(false),
      interval: durationFlag(100, 24 * 3_600_000).default(5000),
      duration: durationFlag(1).optional(),
      actions: z.boolean().default(false),
      'events-out': eventsOutSchema,
      positionals: noPositionals,
    })
    .refine((o) => !(o.once && o.duration !== undefined), {
      path: ['duration'],
      message: 'cannot be combined with --once',
    })
    .refine((o) => !o['dry-run'] || o.once, { path: ['dry-run'], message: 'only with --once' })
    .refine((o) => !o['dry-run'] || (!o.actions && o['events-out'] === undefined), {
      path: ['dry-run'],
      message: 'cannot be combined with --actions or --events-out (it changes nothing)',
    }),
  settingsProblems: runtimeSettingsProblems('sync', false),
  async run(o, ctx) {
    if (o['dry-run']) return dryRun(o, ctx);
    const started = await startRuntimeForCommand(
      {
        command: 'sync',
        connection: toConnection(o),
        ...(o.collections ? { collections: o.collections } : {}),
        intervalMs: o.interval,
        actions: o.actions,
        ...(o['events-out'] ? { eventsOut: o['events-out'] } : {}),
        activity: !o.once,
        backfillProgress: !o.once,
        // Once: every collection read to its end in one poll, whatever the machine's speed.
        ...(o.once ? { pollBudgetMs: ONCE_POLL_BUDGET_MS } : {}),
      },
      ctx,
    );
    if (!o.once) {
      await withRuntime(started, (runtime) =>
        runtime.run({ signal: ctx.signal, ...(o.duration !== undefined ? { durationMs: o.duration } : {}) }),
      );
      return ctx.signal.aborted ? EXIT.interrupted : EXIT.ok;
    }
    const { runtime } = started;
    const { requests, failed, failedCollections } = await withRuntime(started, (r) =>
      pollUntilCaughtUp(r, ctx.signal),
    );
    if (!o.json) {
      const rows = [...runtime.counts().entries()].sort((a, b) => a[0].localeCompare(b[0]));
      if (rows.length > 0) ctx.stdout.write(formatTable(['DETAIL-TYPE', 'EVENTS'], rows));
      ctx.stdout.write(
        `${rows.reduce((n, [, c]) => n + c, 0)} events from ${runtime.collections.length} collections in ${requests} requests\n`,
      );
      // Which failed, by name and sorted: the same line on every run against the same faults.
      if (failed > 0) {
        ctx.stdout.write(
          `${wrapText(`${failed} collection${failed === 1 ? '' : 's'} failed: ${failedCollections.join(', ')}`)}\n`,
        );
      }
    }
    if (ctx.signal.aborted) return EXIT.interrupted;
    return failed > 0 ? EXIT.failure : EXIT.ok;
  },
});

async function dryRun(
  o: { collections?: string[] | undefined; json: boolean } & Parameters<typeof toConnection>[0],
  ctx: CommandContext,
): Promise<number> {
  const connection = toConnection(o);
  loadDotEnv(ctx.env, ctx.cwd);
  const sandbox = await checkedSettings(
    { command: 'sync', connection, intervalMs: 0, actions: false, activity: false },
    ctx,
  );
  if (connection.sandbox && ctx.env.ACCOUNTING_BASE_URL) {
    ctx.stderr.write(
      'warning: ACCOUNTING_BASE_URL is set but the sandbox is used: pass --no-sandbox to talk to the service at it\n',
    );
  }
  const logger = createLogger({
    level: 'warn',
    format: o.json ? 'json' : 'pretty',
    service: 'accounting-events',
    sink: (line) => ctx.stderr.write(`${o.json ? line : fitLogLine(line, plainWidth(ctx.env))}\n`),
  });
  const result = await dryRunSync({
    env: ctx.env,
    sandbox: connection.sandbox ? sandbox : false,
    ...(connection.baseUrl ? { baseUrl: connection.baseUrl } : {}),
    ...(connection.authUrl ? { authUrl: connection.authUrl } : {}),
    dataDir: resolve(ctx.cwd, connection.dataDir),
    ...(o.collections ? { collections: o.collections as CollectionName[] } : {}),
    logger,
    signal: ctx.signal,
  });
  if (o.json) {
    for (const e of result.events) {
      ctx.stdout.write(
        `${JSON.stringify({ source: e.source, 'detail-type': e.detailType, detail: e.detail })}\n`,
      );
    }
  } else {
    const rows = result.events.map((e) => {
      const detail = (e.detail ?? {}) as { id?: unknown; record?: { DocumentNumber?: unknown } };
      return [e.detailType, String(detail.record?.DocumentNumber ?? '-'), String(detail.id ?? '-')];
    });
    if (rows.length > 0) ctx.stdout.write(formatTable(['DETAIL-TYPE', 'DOCUMENT', 'ID'], rows));
    const from = result.resumed > 0 ? `from ${result.resumed} saved checkpoints` : 'as a first run';
    ctx.stdout.write(
      `dry run: ${rows.length} events would be published, in ${result.requests} requests${result.failed ? `, ${result.failed} collections failed` : ''}\n${wrapText(`${from}, connection ${result.connection}; nothing was published and no checkpoint moved`)}\n`,
    );
  }
  if (ctx.signal.aborted) return EXIT.interrupted;
  return result.failed > 0 ? EXIT.failure : EXIT.ok;
}
