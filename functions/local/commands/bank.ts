import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import * as z from 'zod';
import { DEFAULT_SERVICE_VARIANT, serviceVariants } from '#functions/accounting/collections.js';
import { DataDirLockedError } from '#functions/adapters/local/data-dir-lock.js';
import { StatementFormatError } from '#functions/core/bank/bank-transaction.js';
import { parseStatement } from '#functions/core/bank/parse-statement.js';
import { homeCurrencyOf } from '#functions/core/bank/statement-drop.js';
import { systemClock } from '#functions/shared/clock.js';
import { ENV } from '#functions/shared/env-names.js';
import { importStatementFile, statementsDir } from '../bank-statements.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { UsageError } from '../usage-error.js';
import { startRuntimeForCommand, withRuntime } from './runtime-command.js';
import { connectionFlags, connectionSchemaShape, toConnection } from './shared-flags.js';

const OUTCOMES = [
  'IssuedInvoice.PaymentRecorded',
  'IssuedAdvanceInvoice.PaymentRecorded',
  'BankTransaction.Unmatched',
  'Action.Failed',
] as const;

export const bankCommand = defineCommand({
  name: 'bank',
  positionalsHelp: 'import <FILE>',
  summary:
    'Import a bank statement (camt.053, GPC/ABO or Fio JSON): its payments liquidate the invoices they pay.',
  description: [
    'import FILE   reads the statement (the format from its content), publishes one BankTransaction.Received per credit transaction on the local bus and runs the payment action on them: each invoice paid is liquidated once, however often the file is imported; unknown payments are reported (BankTransaction.Unmatched).',
    'When `run` holds the data directory, the file is put into its watched folder <data dir>/bank-statements/<connection>/ instead, and `run` imports it within seconds.',
    'A file that cannot be read changes nothing: every problem is named (exit 2).',
  ].join('\n'),
  flags: {
    ...connectionFlags,
    connection: {
      type: 'string',
      value: 'NAME',
      description: 'The connection whose account the statement is of.',
      defaultHelp: "the run's connection",
    },
    currency: {
      type: 'string',
      value: 'CODE',
      description: 'Currency of the account for GPC files that carry none.',
      defaultHelp: "the variant's home currency",
    },
  },
  schema: z.object({
    ...connectionSchemaShape,
    connection: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { error: 'expected a connection name' })
      .optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, { error: 'expected an ISO 4217 code such as CZK' })
      .optional(),
    positionals: z.tuple([z.literal('import'), z.string().min(1)], { error: 'expected "import FILE"' }),
  }),
  async run(o, ctx) {
    const file = resolve(ctx.cwd, o.positionals[1]);
    const variant = z.enum(serviceVariants).catch(DEFAULT_SERVICE_VARIANT).parse(ctx.env[ENV.serviceVariant]);
    const currency = o.currency ?? homeCurrencyOf(variant);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readFile(file));
    } catch (error) {
      throw new UsageError(
        `FILE: cannot read ${o.positionals[1]} (${(error as NodeJS.ErrnoException).code})`,
        'bank',
        {
          cause: error,
        },
      );
    }
    try {
      parseStatement(bytes, { defaultCurrency: currency });
    } catch (error) {
      if (!(error instanceof StatementFormatError)) throw error;
      throw new UsageError(`FILE: ${error.message}`, 'bank', { cause: error });
    }
    let started: Awaited<ReturnType<typeof startRuntimeForCommand>>;
    try {
      started = await startRuntimeForCommand(
        {
          command: 'bank',
          connection: toConnection(o),
          intervalMs: 1000,
          actions: true,
          activity: false,
          backfillProgress: false,
        },
        ctx,
      );
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      // The run's connection: the sandbox's when it runs the sandbox, else the configured one.
      const connection =
        o.connection ?? (toConnection(o).sandbox ? 'sandbox' : (ctx.env[ENV.connection] ?? 'default'));
      const dir = statementsDir(resolve(ctx.cwd, o['data-dir']), connection);
      await mkdir(dir, { recursive: true });
      await copyFile(file, join(dir, basename(file)));
      ctx.stdout.write(`run holds the data directory: ${basename(file)} put into ${dir} for it to import\n`);
      return EXIT.ok;
    }
    const { runtime } = started;
    const before = new Map(runtime.counts());
    const result = await withRuntime(started, async () => {
      const imported = await importStatementFile(
        { publisher: runtime.bus, clock: systemClock, logger: started.logger },
        file,
        { connection: o.connection ?? runtime.connection, defaultCurrency: currency, key: basename(file) },
      );
      await runtime.drain();
      return imported;
    });
    const counted = OUTCOMES.map((t) => `${t} ${(runtime.counts().get(t) ?? 0) - (before.get(t) ?? 0)}`);
    ctx.stdout.write(
      `${result.format} statement of ${result.account}: ${result.published} credit transactions (${result.skipped} other entries); ${counted.join(', ')}\n`,
    );
    if (ctx.signal.aborted) return EXIT.interrupted;
    return runtime.bus.deadLetters().length > 0 ? EXIT.failure : EXIT.ok;
  },
});
