import { join } from 'node:path';
import * as z from 'zod';
import { defineCommand, noPositionals } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { detailTypeFlag } from './shared-flags.js';

export const eventsCommand = defineCommand({
  name: 'events',
  summary: 'List the event catalog (every detail-type); --schema prints the JSON Schemas.',
  flags: {
    schema: {
      type: 'boolean',
      description: 'Print the JSON Schema (draft 2020-12) of every detail, keyed by detail-type.',
    },
    type: {
      type: 'string',
      value: 'DETAIL-TYPE',
      description: 'Only this detail-type (e.g. ReceivedOrder.Created).',
    },
    write: {
      type: 'string',
      value: 'DIR',
      description: 'With --schema: write one <detail-type>.json per event into DIR and docs/events.md.',
    },
    json: { type: 'boolean', description: 'Print the list as JSON (detailType, description).' },
  },
  schema: z
    .object({
      schema: z.boolean().default(false),
      type: z.string().min(1).optional(),
      write: z.string().min(1, { message: 'expected a directory' }).optional(),
      json: z.boolean().default(false),
      positionals: noPositionals,
    })
    .refine((o) => o.write === undefined || o.schema, { path: ['write'], message: 'needs --schema' }),
  async run(options, ctx) {
    const { catalogEntry, eventCatalog, toJsonSchemas } = await import('../../core/events/catalog.js');
    const entries = options.type
      ? [catalogEntry(await detailTypeFlag(options.type, 'events'))]
      : eventCatalog;
    if (options.write !== undefined) {
      const { writeSchemas } = await import('../write-schemas.js');
      const count = await writeSchemas(join(ctx.cwd, options.write), join(ctx.cwd, 'docs', 'events.md'));
      ctx.stdout.write(`wrote ${count} schemas to ${options.write} and docs/events.md\n`);
      return EXIT.ok;
    }
    if (options.schema) {
      ctx.stdout.write(`${JSON.stringify(toJsonSchemas(entries), null, 2)}\n`);
      return EXIT.ok;
    }
    if (options.json) {
      const list = entries.map((e) => ({ detailType: e.detailType, description: e.description }));
      ctx.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return EXIT.ok;
    }
    ctx.stdout.write(
      formatTable(
        ['DETAIL-TYPE', 'DESCRIPTION'],
        entries.map((e) => [e.detailType, e.description]),
      ),
    );
    ctx.stdout.write(`\n${entries.length} detail-types\n`);
    return EXIT.ok;
  },
});
