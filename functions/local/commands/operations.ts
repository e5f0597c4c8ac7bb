import * as z from 'zod';
import { DEFAULT_SERVICE_VARIANT, serviceVariants } from '#functions/accounting/collections.js';
import { variantPresets } from '#functions/accounting/config.js';
import { operationsFor } from '#functions/accounting/endpoints.js';
import { ENV } from '#functions/shared/env-names.js';
import { defineCommand, noPositionals } from '../command.js';
import { loadDotEnv } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { UsageError } from '../usage-error.js';

const variantSchema = z.enum(serviceVariants, {
  error: `expected one of ${serviceVariants.join(', ')}`,
});

export const operationsCommand = defineCommand({
  name: 'operations',
  summary:
    'List every operation of the endpoint catalog of the configured service variant: id, method, path, and whether the path is assumed; the summary names the variant’s OAuth scope.',
  description: `The variant is ${ENV.serviceVariant} (sk or cz, default sk) unless --variant names one. Assumed paths follow the service's visible conventions and can be replaced with ${ENV.pathOverrides}.`,
  flags: {
    json: {
      type: 'boolean',
      description: 'Print a JSON array of { id, method, path, assumed } instead of a table.',
    },
    variant: {
      type: 'string',
      value: 'sk|cz',
      description: `Service variant whose catalog to print (default: ${ENV.serviceVariant}, else sk).`,
    },
  },
  schema: z.object({
    json: z.boolean().default(false),
    variant: variantSchema.optional(),
    positionals: noPositionals,
  }),
  async run(options, ctx) {
    loadDotEnv(ctx.env, ctx.cwd);
    const fromEnv = ctx.env[ENV.serviceVariant]?.trim().toLowerCase() || undefined;
    const parsed = variantSchema.safeParse(options.variant ?? fromEnv ?? DEFAULT_SERVICE_VARIANT);
    if (!parsed.success) {
      throw new UsageError(
        `${ENV.serviceVariant}: expected one of ${serviceVariants.join(', ')}`,
        'operations',
      );
    }
    const variant = parsed.data;
    const rows = operationsFor(variant).map((o) => ({
      id: o.id,
      method: o.method,
      path: o.path,
      assumed: o.assumed,
    }));
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
      `\nvariant ${variant}: ${rows.length} operations, ${rows.filter((r) => r.assumed).length} with assumed paths;\nOAuth scope ${variantPresets[variant].scope}\n`,
    );
    return EXIT.ok;
  },
});
