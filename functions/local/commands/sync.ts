import * as z from 'zod';
import { defineCommand, durationFlag, noPositionals } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { pollUntilCaughtUp, startRuntimeForCommand, withRuntime } from './runtime-command.js';
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
  summary: 'Poll for changes and publish events (no actions unless --actions); --once for one cycle.',
  description:
    'With --once: one poll of every collection (continued until caught up), then a summary per event type.\nWithout: polls on --interval until Ctrl-C or --duration.',
  flags: {
    ...connectionFlags,
    ...collectionsFlag,
    once: { type: 'boolean', description: 'One poll cycle (until caught up), then stop.' },
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
      interval: durationFlag(100, 24 * 3_600_000).default(5000),
      duration: durationFlag(1).optional(),
      actions: z.boolean().default(false),
      'events-out': eventsOutSchema,
      positionals: noPositionals,
    })
    .refine((o) => !(o.once && o.duration !== undefined), {
      path: ['duration'],
      message: 'cannot be combined with --once',
    }),
  async run(o, ctx) {
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
    const { requests, failed } = await withRuntime(started, (r) => pollUntilCaughtUp(r, ctx.signal));
    if (!o.json) {
      const rows = [...runtime.counts().entries()].sort((a, b) => a[0].localeCompare(b[0]));
      if (rows.length > 0) ctx.stdout.write(formatTable(['DETAIL-TYPE', 'EVENTS'], rows));
      ctx.stdout.write(
        `${rows.reduce((n, [, c]) => n + c, 0)} events from ${runtime.collections.length} collections in ${requests} requests${failed ? `, ${failed} collections failed` : ''}\n`,
      );
    }
    if (ctx.signal.aborted) return EXIT.interrupted;
    return failed > 0 ? EXIT.failure : EXIT.ok;
  },
});
