import * as z from 'zod';
import { NoHoldError } from '#functions/core/actions/sending-hold.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { type HoldRow, localHolds } from '../holds.js';
import { UsageError } from '../usage-error.js';
import { startRuntimeForCommand, withRuntime } from './runtime-command.js';
import {
  connectionFlags,
  connectionSchemaShape,
  eventsOutFlag,
  eventsOutSchema,
  toConnection,
} from './shared-flags.js';

function holdLine(h: HoldRow): string {
  const released = h.released ? ` released ${h.released.at} by ${h.released.by} (${h.released.via})` : '';
  return `${h.status.padEnd(8)} ${h.connection} ${h.recordType} ${h.documentNumber ?? '-'} ${h.id} held ${h.heldAt} (order ${h.receivedOrder.documentNumber ?? h.receivedOrder.id})${released}`;
}

export const holdsCommand = defineCommand({
  name: 'holds',
  positionalsHelp: 'ls | release <INVOICE-ID>',
  summary:
    'Invoices held for a person (their partner was matched on checkout input): list them, release one.',
  description: [
    'ls: every hold of the data directory, held ones first.',
    'release ID --by NAME: a person has checked the partner: the invoice may be sent and reminded again. Recorded as IssuedInvoice.SendingReleased, with NAME. Replay its IssuedInvoice.Created event (the console) to send it now; reminders follow at their next pass.',
    'Takes the data directory like replay: not while run holds it (use the console of that run then).',
  ].join('\n'),
  flags: {
    ...connectionFlags,
    ...eventsOutFlag,
    connection: {
      type: 'string',
      value: 'NAME',
      description: "release: the connection of the invoice (default: the run's first).",
    },
    by: { type: 'string', value: 'NAME', description: 'release: who releases it (recorded in the event).' },
  },
  schema: z.object({
    ...connectionSchemaShape,
    'events-out': eventsOutSchema,
    connection: z.string().min(1).optional(),
    by: z.string().trim().min(1, { message: 'expected who releases it' }).max(128).optional(),
    positionals: z.union(
      [
        z.tuple([z.literal('ls')]),
        z.tuple([z.literal('release'), z.string().min(1, { message: 'expected an invoice id' })]),
      ],
      { error: 'expected "ls" or "release INVOICE-ID"' },
    ),
  }),
  async run(o, ctx) {
    const [sub, id] = o.positionals;
    if (sub === 'release' && o.by === undefined)
      throw new UsageError('--by: expected who releases it', 'holds');
    const started = await startRuntimeForCommand(
      {
        command: 'holds',
        connection: toConnection(o),
        intervalMs: 1000,
        actions: false,
        activity: false,
        backfillProgress: false,
        ...(o['events-out'] ? { eventsOut: o['events-out'] } : {}),
      },
      ctx,
    );
    return withRuntime(started, async (runtime) => {
      const holds = localHolds(runtime);
      if (sub === 'ls') {
        const rows = await holds.list();
        for (const row of rows) ctx.stdout.write(`${o.json ? JSON.stringify(row) : holdLine(row)}\n`);
        if (!o.json && rows.length === 0) ctx.stdout.write('no holds\n');
        return EXIT.ok;
      }
      try {
        const hold = await holds.release({
          connection: o.connection ?? runtime.connection,
          id: id as string,
          by: o.by as string,
          via: 'cli',
        });
        await runtime.drain();
        ctx.stdout.write(
          `released ${hold.recordType} ${hold.documentNumber ?? hold.id} (held ${hold.heldAt})\n`,
        );
        return EXIT.ok;
      } catch (error) {
        if (!(error instanceof NoHoldError)) throw error;
        ctx.stderr.write(`error: ${error.message}\n`);
        return EXIT.failure;
      }
    });
  },
});
