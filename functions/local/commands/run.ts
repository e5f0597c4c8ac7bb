import { resolve } from 'node:path';
import * as z from 'zod';
import { DEFAULT_SERVICE_VARIANT, serviceVariants } from '#functions/accounting/collections.js';
import { homeCurrencyOf } from '#functions/core/bank/statement-drop.js';
import { DeliveryTargetError, parseTargetSpecs } from '#functions/core/delivery/delivery-targets.js';
import type { Logger } from '#functions/core/ports.js';
import { systemClock } from '#functions/shared/clock.js';
import { ENV } from '#functions/shared/env-names.js';
import { fioTokenOf, pollFio, watchStatements } from '../bank-statements.js';
import { defineCommand, durationFlag, noPositionals } from '../command.js';
import { type ConsoleFeed, createConsoleFeed } from '../console/console-feed.js';
import { openConsole } from '../console/open-console.js';
import { EXIT } from '../exit-codes.js';
import type { Runtime } from '../runtime-options.js';
import { UsageError } from '../usage-error.js';
import { warningsSummary } from '../warnings-file.js';
import { runtimeSettingsProblems, startRuntimeForCommand, withRuntime } from './runtime-command.js';
import {
  collectionsFlag,
  collectionsSchema,
  connectionFlags,
  connectionSchemaShape,
  eventsOutFlag,
  eventsOutSchema,
  toConnection,
} from './shared-flags.js';

const portSchema = z.coerce
  .number({ error: 'expected a port number 0-65535' })
  .int({ error: 'expected a port number 0-65535' })
  .min(0, { error: 'expected a port number 0-65535' })
  .max(65535, { error: 'expected a port number 0-65535' });

/** The console of this run; a port that cannot be had is a usage error (exit 2). */
async function serveConsole(runtime: Runtime, feed: ConsoleFeed, port: number, logger: Logger) {
  try {
    return await openConsole(runtime, feed, { port, logger });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
    throw new UsageError(`--console-port: cannot listen on 127.0.0.1:${port} (${code})`, 'run', {
      cause: error,
    });
  }
}

export const runCommand = defineCommand({
  name: 'run',
  summary: 'Run everything: sandbox, embedded DynamoDB + S3, the local bus, the poller and every action.',
  description: [
    'What `npm start` runs. Shows a live view on a terminal (line logs otherwise, JSON with --json).',
    'Ctrl-C (or the end of --duration) stops within seconds: the running poll ends, the deliveries in flight finish, checkpoints and the bus positions are saved, servers close; queued deliveries stay journaled and the next start delivers them.',
    'A restart on the same --data-dir resumes from the checkpoints without repeating effects.',
    'Credentials (only with --no-sandbox) come from the environment or ./.env: ACCOUNTING_API_KEY, or ACCOUNTING_CLIENT_ID + ACCOUNTING_CLIENT_SECRET (+ ACCOUNTING_SCOPE) with --auth-url.',
  ].join('\n'),
  flags: {
    ...connectionFlags,
    ...collectionsFlag,
    interval: {
      type: 'string',
      value: 'DURATION',
      description: 'Time between polls (500ms, 5s, 1m).',
      defaultHelp: '5s',
    },
    'no-actions': { type: 'boolean', description: 'Publish events only; run no action.' },
    companies: {
      type: 'string',
      value: 'N',
      description:
        'Start the sandbox with N companies and poll each as its own connection, sandbox-1 … sandbox-N (its demo credentials handed over in process).',
    },
    connections: {
      type: 'string',
      value: 'FILE',
      description:
        'Poll the connections of this registry file (docs/connections.md), read again every cycle: added, paused, resumed and removed ones take effect at once. No sandbox.',
    },
    ...eventsOutFlag,
    duration: { type: 'string', value: 'DURATION', description: 'Stop cleanly after this long (e.g. 60s).' },
    'deliver-to': {
      type: 'string',
      value: 'URL[,PATTERN]',
      multiple: true,
      description:
        'POST matching events to URL, signed (Standard Webhooks); PATTERN: IssuedInvoice.Created, IssuedInvoice.* or * (default), several joined by |. Repeatable.',
    },
    'console-port': {
      type: 'string',
      value: 'PORT',
      description:
        'Serve the console in the browser on 127.0.0.1:PORT (0 = any free port); its URL, with a token for this run, is printed at start.',
      defaultHelp: '0',
    },
    'no-console': { type: 'boolean', description: 'Serve no console.' },
    'intake-port': {
      type: 'string',
      value: 'PORT',
      description:
        'Serve the e-shop order intake: POST /intake/<connection>/<source> (or /intake/<source>: the only connection) on 127.0.0.1:PORT (0 = any free port); sources with INTAKE_*_SECRET set.',
    },
  },
  schema: z
    .object({
      ...connectionSchemaShape,
      collections: collectionsSchema.optional(),
      interval: durationFlag(100, 24 * 3_600_000).optional(),
      'no-actions': z.boolean().default(false),
      companies: z.coerce
        .number({ error: 'expected a number of companies, 1-10000' })
        .int({ error: 'expected a number of companies, 1-10000' })
        .min(1, { error: 'expected a number of companies, 1-10000' })
        .max(10_000, { error: 'expected a number of companies, 1-10000' })
        .optional(),
      connections: z.string().min(1, { error: 'expected a file path' }).optional(),
      'events-out': eventsOutSchema,
      duration: durationFlag(1).optional(),
      'deliver-to': z
        .array(z.string())
        .default([])
        .transform((specs, ctx) => {
          try {
            return parseTargetSpecs(specs);
          } catch (error) {
            if (!(error instanceof DeliveryTargetError)) throw error;
            ctx.addIssue({ code: 'custom', message: error.message });
            return z.NEVER;
          }
        }),
      'intake-port': portSchema.optional(),
      'console-port': portSchema.default(0),
      'no-console': z.boolean().default(false),
      positionals: noPositionals,
    })
    .transform((o) => ({
      // A registry file names its connections' services: no sandbox.
      connection: { ...toConnection(o), ...(o.connections !== undefined ? { sandbox: false } : {}) },
      collections: o.collections,
      intervalMs: o.interval ?? 5000,
      intervalFromFlag: o.interval !== undefined,
      companies: o.companies,
      connectionsFile: o.connections,
      actions: !o['no-actions'],
      eventsOut: o['events-out'],
      durationMs: o.duration,
      deliverTo: o['deliver-to'],
      intakePort: o['intake-port'],
      consolePort: o['no-console'] ? undefined : o['console-port'],
    })),
  settingsProblems: runtimeSettingsProblems('run', true),
  async run(options, ctx) {
    const feed = options.consolePort !== undefined ? createConsoleFeed() : undefined;
    const started = await startRuntimeForCommand(
      {
        command: 'run',
        connection: options.connection,
        ...(options.collections ? { collections: options.collections } : {}),
        intervalMs: options.intervalMs,
        intervalFromFlag: options.intervalFromFlag,
        ...(options.companies !== undefined ? { companies: options.companies } : {}),
        ...(options.connectionsFile !== undefined ? { connectionsFile: options.connectionsFile } : {}),
        actions: options.actions,
        ...(options.eventsOut ? { eventsOut: options.eventsOut } : {}),
        ...(options.deliverTo.length > 0 ? { deliverTo: options.deliverTo } : {}),
        ...(options.intakePort !== undefined ? { intake: { port: options.intakePort } } : {}),
        ...(feed ? { observe: feed.onUpdate } : {}),
      },
      ctx,
    );
    await withRuntime(started, async (runtime) => {
      const served = feed
        ? await serveConsole(runtime, feed, options.consolePort ?? 0, started.logger)
        : undefined;
      if (served) started.view.update({ kind: 'console', url: served.url });
      // Statements dropped into <data dir>/bank-statements/<connection>/ are imported as they come.
      const statements = options.actions
        ? watchStatements(
            { publisher: runtime.bus, clock: systemClock, logger: started.logger },
            {
              dataDir: resolve(ctx.cwd, options.connection.dataDir),
              connections: () => runtime.connections(),
              defaultCurrency: homeCurrencyOf(
                z.enum(serviceVariants).catch(DEFAULT_SERVICE_VARIANT).parse(ctx.env[ENV.serviceVariant]),
              ),
              intervalMs: 2_000,
            },
          )
        : undefined;
      const fioToken = options.actions ? fioTokenOf(ctx.env) : undefined;
      const fio = fioToken
        ? pollFio(
            { publisher: runtime.bus, clock: systemClock, logger: started.logger },
            {
              token: fioToken,
              connection: runtime.connection,
              dataDir: resolve(ctx.cwd, options.connection.dataDir),
            },
          )
        : undefined;
      try {
        await runtime.run({
          signal: ctx.signal,
          ...(options.durationMs !== undefined ? { durationMs: options.durationMs } : {}),
        });
      } finally {
        await fio?.stop();
        await statements?.stop();
        await served?.close();
      }
    });
    // The view showed the last warnings cut to the width; the file has them all, whole.
    const summary = warningsSummary(started.warnings, started.runtime.bus.deadLetters().length);
    if (summary) ctx.stderr.write(`${summary}\n`);
    if (ctx.signal.aborted) return EXIT.interrupted;
    // No connection ever answered, and the service refused credentials: the run did nothing.
    const health = started.runtime.health();
    if (!health.answered && health.refused.length > 0) {
      const whose = health.refused.length === 1 ? health.refused[0] : `${health.refused.length} connections`;
      ctx.stderr.write(`error: nothing was read: credentials refused (${whose})\n`);
      return EXIT.failure;
    }
    return EXIT.ok;
  },
});
