import * as z from 'zod';
import { createAccountingClient } from '#functions/accounting/client.js';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import {
  connectionReadiness,
  DAY_MS,
} from '#functions/core/actions/report-einvoicing-readiness/connection-readiness.js';
import { systemClock } from '#functions/shared/clock.js';
import { createLogger } from '#functions/shared/logger.js';
import { defineCommand } from '../command.js';
import { loadDotEnv } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { formatReadiness } from '../readiness-text.js';
import { accountingConfigFor } from '../runtime-options.js';
import { checkedSettings } from './runtime-command.js';
import { connectionFlags, connectionSchemaShape, toConnection } from './shared-flags.js';

/** `90d`, `12w` or `48h`: a period back from now, from an hour to ten years. */
const sinceSchema = z.string().transform((text, ctx) => {
  const match = /^(\d+)\s*([dhw])$/.exec(text.trim());
  const ms = match
    ? Number(match[1]) * { h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS }[match[2] as 'h' | 'd' | 'w']
    : NaN;
  if (!(ms >= 3_600_000 && ms <= 3653 * DAY_MS)) {
    ctx.addIssue({
      code: 'custom',
      message: `expected a period such as 90d, 12w or 48h (up to 10 years), got "${text}"`,
    });
    return z.NEVER;
  }
  return ms;
});

export const einvoiceCommand = defineCommand({
  name: 'einvoice',
  summary:
    'readiness: which issued invoices of a period the e-invoicing policy would send, which the pre-flight would block and by which rule, the partners to fix first and those without a DIČ.',
  description:
    'Reads the issued invoices of the period, the address book and the VAT rates of the connection (the sandbox by default), and checks each invoice as the sending would, without sending anything. Exits 0 whenever it produces the report.',
  positionalsHelp: 'readiness',
  flags: {
    ...connectionFlags,
    since: {
      type: 'string',
      value: 'PERIOD',
      description: 'Invoices issued in this period back from today (90d, 12w, 48h).',
      defaultHelp: '90d',
    },
    json: { type: 'boolean', description: 'Print the report as JSON.' },
  },
  schema: z.object({
    ...connectionSchemaShape,
    since: sinceSchema.default(90 * DAY_MS),
    positionals: z.tuple([z.literal('readiness', { error: 'expected the subcommand readiness' })]),
  }),
  async run(o, ctx) {
    const connection = toConnection(o);
    loadDotEnv(ctx.env, ctx.cwd);
    const settings = await checkedSettings(
      { command: 'einvoice', connection, intervalMs: 0, actions: false, activity: false },
      ctx,
    );
    const now = systemClock.now();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    let sandbox: import('#sandbox/index.js').Sandbox | undefined;
    if (connection.sandbox) {
      const { startSandbox } = await import('#sandbox/index.js');
      // Seeded invoices dated in the year up to today, so a period back from today finds them.
      sandbox = await startSandbox({ ...settings, seedAnchor: new Date(today + DAY_MS).toISOString() });
    }
    try {
      const logger = createLogger({
        level: 'warn',
        format: 'json',
        service: 'accounting-events',
        sink: (line) => ctx.stderr.write(`${line}\n`),
      });
      const config = accountingConfigFor(
        { env: ctx.env, baseUrl: connection.baseUrl, authUrl: connection.authUrl } as Parameters<
          typeof accountingConfigFor
        >[0],
        sandbox,
      );
      const api = createAccountingClient(config, { logger, clock: systemClock });
      try {
        const actions = loadActionsConfig(ctx.env);
        const report = await connectionReadiness(
          api,
          actions,
          { from: new Date(today - o.since + DAY_MS), to: now },
          sandbox ? 'sandbox' : actions.connection,
        );
        ctx.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatReadiness(report));
        return EXIT.ok;
      } finally {
        await api.close();
      }
    } finally {
      await sandbox?.close();
    }
  },
});
