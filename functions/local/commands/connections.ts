import * as z from 'zod';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import { type ConnectionEntry, ConnectionEntryError } from '#functions/core/connections/connection-entry.js';
import {
  ConnectionSecretError,
  connectionAccountingConfig,
} from '#functions/core/connections/connection-secret.js';
import { renderConnectionsSchema } from '#functions/core/connections/connections-file.js';
import {
  ConnectionRegistryError,
  DuplicateConnectionError,
  UnknownConnectionError,
} from '#functions/core/connections/registry.js';
import { sealedReferenceLabel } from '#functions/core/connections/sealed-credentials.js';
import { systemClock } from '#functions/shared/clock.js';
import { ConfigError } from '#functions/shared/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { type CommandContext, defineCommand, durationFlag, formatMs, urlFlag } from '../command.js';
import { entryFromFlags } from '../connections-entry-input.js';
import { CONNECTIONS_FILE, openRegistryTarget, type RegistryTarget } from '../connections-registry-target.js';
import { describeProbe, testConnection } from '../connections-test.js';
import { loadDotEnv } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { type SealFlags, sealerOf } from '../seal-credentials.js';
import { wrapText } from '../wrap-text.js';
import { connectionsFlags } from './connections-flags.js';
import { DEFAULT_DATA_DIR } from './shared-flags.js';

const SUBCOMMANDS = 'expected add, list, test NAME, pause NAME, resume NAME, remove NAME or schema';
const named = (sub: string) =>
  z.tuple([z.literal(sub), z.string().min(1, { message: 'expected a connection NAME' })]);
const ADD_ONLY = [
  'name',
  'variant',
  'base-url',
  'auth-url',
  'credentials-secret',
  'collections',
  'poll-interval',
  'paused',
  'rate-limit',
  'burst',
  'action',
  'from-json',
  'seal-credentials',
  'sealing-keys',
  'sealing-key-id',
  'skip-secret-check',
] as const;
const positive = (what: string) =>
  z.coerce.number({ error: `expected ${what}` }).positive({ error: `expected ${what}` });

export const connectionsCommand = defineCommand({
  name: 'connections',
  positionalsHelp: 'add | list | test NAME | pause NAME | resume NAME | remove NAME | schema',
  summary: 'The connection registry (one entry per company): add, list, test, pause, resume, remove.',
  description: [
    'add            a connection from the flags and/or --from-json FILE; refused (exit 2, nothing changed) when malformed, its name is taken, or its secret is missing (env:NAME unset) or not credentials JSON (--skip-secret-check to add a secret later)',
    'list           one row per connection (--json: one JSON object per line); never a secret',
    'test NAME      resolves the secret, checks the credentials and asks each collection for one record (answered, 404, refused); exit 1 when the credentials are refused',
    'pause NAME     stop polling and acting for it (the entry stays); resume NAME undoes it',
    'remove NAME    removes the entry (its checkpoints and archive stay)',
    'schema         prints the JSON Schema of the registry file (docs/connections.schema.json)',
    `The registry: --connections FILE (default <data-dir>/${CONNECTIONS_FILE}), or --table NAME on DynamoDB.`,
    'Secrets are references only: env:NAME (a variable holding {"apiKey"} or {"clientId","clientSecret"}) or a Secrets Manager ARN or name holding the same JSON. See docs/connections.md.',
  ].join('\n'),
  flags: connectionsFlags,
  schema: z
    .object({
      connections: z.string().min(1, { message: 'expected a file path' }).optional(),
      'data-dir': z.string().min(1, { message: 'expected a directory path' }).default(DEFAULT_DATA_DIR),
      table: z.string().min(3, { message: 'expected a DynamoDB table name' }).optional(),
      region: z.string().min(1, { message: 'expected an AWS region' }).optional(),
      endpoint: urlFlag.optional(),
      name: z.string().optional(),
      variant: z.string().optional(),
      'base-url': z.string().optional(),
      'auth-url': z.string().optional(),
      'credentials-secret': z.string().optional(),
      collections: z.string().optional(),
      'poll-interval': durationFlag(1000, 86_400_000).optional(),
      paused: z.boolean().default(false),
      'rate-limit': positive('requests per second (a positive number)').optional(),
      burst: positive('a burst size (a positive integer)').optional(),
      action: z.array(z.string()).optional(),
      'from-json': z.string().min(1, { message: 'expected a file path' }).optional(),
      'seal-credentials': z.string().min(1, { message: 'expected a file path' }).optional(),
      'sealing-keys': z.string().optional(),
      'sealing-key-id': z.string().optional(),
      'skip-secret-check': z.boolean().default(false),
      all: z.boolean().default(false),
      json: z.boolean().default(false),
      wide: z.boolean().default(false),
      positionals: z.union(
        [
          z.tuple([z.literal('add')]),
          z.tuple([z.literal('list')]),
          z.tuple([z.literal('schema')]),
          named('test'),
          named('pause'),
          named('resume'),
          named('remove'),
        ],
        { error: SUBCOMMANDS },
      ),
    })
    .superRefine((o, ctx) => {
      const sub = o.positionals[0];
      if (o.connections !== undefined && o.table !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['table'],
          message: 'either --connections FILE or --table NAME, not both',
        });
      }
      if (o.endpoint !== undefined && o.table === undefined) {
        ctx.addIssue({ code: 'custom', path: ['endpoint'], message: 'only with --table' });
      }
      for (const flag of ADD_ONLY) {
        const given = o[flag] !== undefined && o[flag] !== false;
        if (given && sub !== 'add') ctx.addIssue({ code: 'custom', path: [flag], message: 'only with add' });
      }
      if (o['seal-credentials'] !== undefined && o.table === undefined)
        ctx.addIssue({ code: 'custom', path: ['seal-credentials'], message: 'only with --table (on AWS)' });
      if (o['seal-credentials'] === undefined)
        for (const flag of ['sealing-keys', 'sealing-key-id'] as const)
          if (o[flag] !== undefined)
            ctx.addIssue({ code: 'custom', path: [flag], message: 'only with --seal-credentials' });
      if (o.all && sub !== 'test') ctx.addIssue({ code: 'custom', path: ['all'], message: 'only with test' });
      if (o.wide && sub !== 'list')
        ctx.addIssue({ code: 'custom', path: ['wide'], message: 'only with list' });
      if (o.json && sub !== 'list' && sub !== 'test') {
        ctx.addIssue({ code: 'custom', path: ['json'], message: 'only with list or test' });
      }
    }),
  async run(o, ctx) {
    const [sub, name] = o.positionals;
    if (sub === 'schema') {
      ctx.stdout.write(renderConnectionsSchema());
      return EXIT.ok;
    }
    const env = { ...ctx.env };
    loadDotEnv(env, ctx.cwd);
    const target = openRegistryTarget(o, ctx.cwd, env);
    try {
      if (sub === 'add') return await add(o, target, env, ctx);
      if (sub === 'list') return await list(target, o, ctx);
      if (sub === 'test') return await test(name as string, o, target, env, ctx);
      return await change(sub, name as string, target, ctx);
    } catch (error) {
      if (isRefusal(error)) {
        ctx.stderr.write(
          `error: ${(error as Error).message}\nnothing was changed in the registry (${target.describe})\n`,
        );
        return EXIT.usage;
      }
      throw error;
    } finally {
      target.close();
    }
  },
});

/** What the registry refused or could not accept as given: a usage or configuration error, exit 2. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof ConnectionEntryError ||
    error instanceof DuplicateConnectionError ||
    error instanceof UnknownConnectionError ||
    error instanceof ConnectionSecretError ||
    error instanceof ConfigError ||
    error instanceof ConnectionRegistryError
  );
}

function resolverFor(target: RegistryTarget, env: Record<string, string | undefined>) {
  return createConnectionSecretResolver({
    env,
    clock: systemClock,
    secretsManager: target.secretsManager(),
    ssm: target.ssm(),
  });
}

async function add(
  o: Parameters<typeof entryFromFlags>[0] & SealFlags & { 'skip-secret-check': boolean },
  target: RegistryTarget,
  env: Record<string, string | undefined>,
  ctx: CommandContext,
): Promise<number> {
  const sealer = await sealerOf(o, target.ssm, ctx.cwd);
  const entry = await entryFromFlags(o, ctx.cwd, sealer?.seal);
  if (!o['skip-secret-check']) {
    // The credentials must be there and well-formed (sealed ones: they open with the stored key);
    // the service itself is `test`'s business.
    const withKeys = sealer ? { ...env, [ENV.sealingKeysPath]: sealer.path } : env;
    connectionAccountingConfig(entry, await resolverFor(target, withKeys).sourceFor(entry).get(), env);
  }
  await target.registry.add(entry);
  ctx.stdout.write(
    `${wrapText(`added connection '${entry.name}' (${summary(entry)}) to the ${target.describe}`)}\n`,
  );
  return EXIT.ok;
}

function summary(e: ConnectionEntry): string {
  const collections = e.collections ? `${e.collections.length} collections` : 'default collections';
  const state = e.paused ? 'paused' : 'active';
  return `${e.variant}, ${collections}, every ${formatMs(e.pollIntervalSeconds * 1000)}, ${state}`;
}

function rateText(e: { rateLimit: { requestsPerSecond: number; burst: number } }): string {
  return `${e.rateLimit.requestsPerSecond}/s burst ${e.rateLimit.burst}`;
}

async function list(
  target: RegistryTarget,
  o: { json: boolean; wide: boolean },
  ctx: CommandContext,
): Promise<number> {
  const entries = await target.registry.list();
  if (o.json) {
    for (const e of entries) ctx.stdout.write(`${JSON.stringify(e)}\n`);
    return EXIT.ok;
  }
  if (entries.length > 0 && o.wide) {
    ctx.stdout.write(
      formatTable(
        ['NAME', 'VARIANT', 'STATE', 'INTERVAL', 'RATE', 'COLLECTIONS', 'BASE URL', 'CREDENTIALS'],
        entries.map((e) => [
          e.name,
          e.variant,
          e.paused ? 'paused' : 'active',
          formatMs(e.pollIntervalSeconds * 1000),
          rateText(e),
          e.collections ? e.collections.join(',') : '(default)',
          e.baseUrl ?? '(variant preset)',
          sealedReferenceLabel(e.credentialsSecret),
        ]),
        { maxWidth: Number.POSITIVE_INFINITY },
      ),
    );
  } else if (entries.length > 0) {
    // 80 columns: a row per connection, its longer settings whole on the lines under it.
    const [header, ...rows] = formatTable(
      ['NAME', 'VARIANT', 'STATE', 'INTERVAL', 'RATE'],
      entries.map((e) => [
        e.name,
        e.variant,
        e.paused ? 'paused' : 'active',
        formatMs(e.pollIntervalSeconds * 1000),
        rateText(e),
      ]),
    )
      .trimEnd()
      .split('\n');
    const lines = [header];
    entries.forEach((e, i) => {
      lines.push(
        rows[i] as string,
        wrapText(`  collections  ${e.collections ? e.collections.join(', ') : '(default)'}`),
        `  base URL     ${e.baseUrl ?? '(variant preset)'}`,
        `  credentials  ${sealedReferenceLabel(e.credentialsSecret)}`,
      );
    });
    ctx.stdout.write(`${lines.join('\n')}\n`);
  }
  ctx.stdout.write(
    `${wrapText(`${entries.length} ${entries.length === 1 ? 'connection' : 'connections'} in the ${target.describe}`)}\n`,
  );
  return EXIT.ok;
}

async function test(
  name: string,
  o: { all: boolean; json: boolean },
  target: RegistryTarget,
  env: Record<string, string | undefined>,
  ctx: CommandContext,
): Promise<number> {
  const entry = await target.registry.get(name);
  if (entry === undefined) throw new UnknownConnectionError(name);
  const credentials = await resolverFor(target, env).sourceFor(entry).get();
  const config = connectionAccountingConfig(entry, credentials, env);
  const report = await testConnection(entry, config, { all: o.all, signal: ctx.signal });
  if (o.json) ctx.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    ctx.stdout.write(
      `${wrapText(`connection '${entry.name}' (${entry.variant}, ${report.baseUrl}), credentials from ${sealedReferenceLabel(entry.credentialsSecret)} (${config.credentials.kind === 'apiKey' ? 'API key' : 'OAuth client'}): ${report.credentials === 'unknown' ? 'not checked (no collection answered)' : report.credentials}`)}\n`,
    );
    // The answers are what the test is for: whole, a long one wrapped under its column.
    const table = formatTable(
      ['COLLECTION', 'ANSWER'],
      report.collections.map((r) => [r.collection, describeProbe(r)]),
      { maxWidth: Number.POSITIVE_INFINITY },
    );
    ctx.stdout.write(`${wrapText(table.trimEnd())}\n`);
  }
  return report.credentials === 'accepted' ? EXIT.ok : EXIT.failure;
}

async function change(
  sub: string,
  name: string,
  target: RegistryTarget,
  ctx: CommandContext,
): Promise<number> {
  if (sub === 'remove') {
    await target.registry.remove(name);
    ctx.stdout.write(`${wrapText(`removed connection '${name}' from the ${target.describe}`)}\n`);
    return EXIT.ok;
  }
  const entry = await target.registry.setPaused(name, sub === 'pause');
  ctx.stdout.write(
    `${wrapText(`connection '${name}' is ${entry.paused ? 'paused' : 'active'} (${target.describe})`)}\n`,
  );
  return EXIT.ok;
}
