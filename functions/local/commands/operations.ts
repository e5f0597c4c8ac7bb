import * as z from 'zod';
import { operations } from '../../accounting/endpoints.js';
import { defineCommand, noPositionals } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';

export const operationsCommand = defineCommand({
  name: 'operations',
  summary: 'List every operation of the endpoint catalog: id, method, path, and whether the path is assumed.',
  description:
    "Assumed paths follow the service's visible conventions and can be replaced with ACCOUNTING_PATH_OVERRIDES.",
  flags: {
    json: {
      type: 'boolean',
      description: 'Print a JSON array of { id, method, path, assumed } instead of a table.',
    },
  },
  schema: z.object({ json: z.boolean().default(false), positionals: noPositionals }),
  async run(options, ctx) {
    const rows = operations.map((o) => ({ id: o.id, method: o.method, path: o.path, assumed: o.assumed }));
    if (options.json) {
      ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return EXIT.ok;
    }
    ctx.stdout.write(
      formatTable(
        ['ID', 'METHOD', 'PATH', 'ASSUMED'],
        rows.map((r) => [r.id, r.method, r.path, r.assumed ? 'yes' : 'no']),
      ),
    );
    ctx.stdout.write(
      `\n${rows.length} operations, ${rows.filter((r) => r.assumed).length} with assumed paths\n`,
    );
    return EXIT.ok;
  },
});
