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
    const { catalogEntry, eventCatalog, toJsonSchemas } = await import('#functions/core/event-catalog.js');
    const entries = options.type
      ? [catalogEntry(await detailTypeFlag(options.type, 'events'))]
      : eventCatalog;
    if (options.write !== undefined) {
      const { CATALOG_VERSION_FILE, writeSchemas } = await import('../write-schemas.js');
      const count = await writeSchemas(
        join(ctx.cwd, options.write),
        join(ctx.cwd, 'docs', 'events.md'),
        join(ctx.cwd, 'README.md'),
        join(ctx.cwd, CATALOG_VERSION_FILE),
      );
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
    const { collectionsFor, serviceVariants } = await import('#functions/accounting/collections.js');
    // Reference lists are polled only when asked for: their events come after the documents'.
    const reference = new Set<string>(
      serviceVariants.flatMap((v) =>
        collectionsFor(v)
          .filter((c) => c.kind === 'reference')
          .map((c) => c.recordType),
      ),
    );
    const optIn = (detailType: string) => reference.has(detailType.slice(0, detailType.lastIndexOf('.')));
    const listed = [
      ...entries.filter((e) => !optIn(e.detailType)),
      ...entries.filter((e) => optIn(e.detailType)),
    ];
    ctx.stdout.write(
      formatTable(
        ['DETAIL-TYPE', 'DESCRIPTION'],
        listed.map((e) => [e.detailType, e.description]),
        { cutAtEnd: [1] },
      ),
    );
    const optInCount = listed.filter((e) => optIn(e.detailType)).length;
    ctx.stdout.write(
      `\n${entries.length} detail-types${optInCount > 0 ? ` (the last ${optInCount}: opt-in reference lists)` : ''}; --json: whole texts\n`,
    );
    return EXIT.ok;
  },
});
