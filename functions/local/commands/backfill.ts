import * as z from 'zod';
import { dateTimeFlag, defineCommand, noPositionals } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { resetCheckpoints } from '../runtime.js';
import {
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

export const backfillCommand = defineCommand({
  name: 'backfill',
  summary: 'Publish every record changed since a moment again, then resume normal polling from now.',
  description: [
    'Resets the checkpoints of the selected collections and polls from --since until caught up.',
    'Events keep their idempotency keys, so consumers that saw them before deduplicate them.',
    'Actions are off unless --actions (a backfill against the real service would otherwise transfer every unfinished order it finds).',
  ].join('\n'),
  flags: {
    ...connectionFlags,
    ...collectionsFlag,
    since: {
      type: 'string',
      value: 'DATE-TIME',
      description: 'Where to start (service time), e.g. 2026-01-01T00:00:00Z or 2026-01-01. Required.',
    },
    actions: { type: 'boolean', description: 'Also run the actions on the events.' },
    ...eventsOutFlag,
  },
  schema: z.object({
    ...connectionSchemaShape,
    collections: collectionsSchema.optional(),
    since: z
      .string({ error: 'required: where to start, as a date or an ISO date-time (e.g. --since 2025-01-01)' })
      .pipe(dateTimeFlag),
    actions: z.boolean().default(false),
    'events-out': eventsOutSchema,
    positionals: noPositionals,
  }),
  settingsProblems: runtimeSettingsProblems('backfill', false),
  async run(o, ctx) {
    const started = await startRuntimeForCommand(
      {
        command: 'backfill',
        connection: toConnection(o),
        ...(o.collections ? { collections: o.collections } : {}),
        intervalMs: 1000,
        actions: o.actions,
        ...(o['events-out'] ? { eventsOut: o['events-out'] } : {}),
        startFrom: o.since,
        activity: false,
        backfillProgress: false,
      },
      ctx,
    );
    const { published, failed } = await withRuntime(started, async (runtime) => {
      const reset = await resetCheckpoints(runtime.stores, runtime.connection, runtime.collections);
      started.view.update({
        kind: 'warning',
        message: `backfill from ${o.since}: ${reset} checkpoints reset`,
      });
      return pollUntilCaughtUp(runtime, ctx.signal);
    });
    if (!o.json) ctx.stdout.write(`backfill since ${o.since}: ${published} events published\n`);
    if (ctx.signal.aborted) return EXIT.interrupted;
    return failed > 0 ? EXIT.failure : EXIT.ok;
  },
});
