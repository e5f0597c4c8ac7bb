/**
 * Command line of the sandbox: `runSandboxCli(argv)` parses the flags (zod), starts the
 * sandbox and prints its base URL, auth URL and the demo credentials.
 * Flags win over environment variables (`SANDBOX_*`), which win over defaults.
 */
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { serviceVariants } from '../functions/accounting/collections.js';
import { ENV } from '../functions/shared/env-names.js';
import { type ActivityAction, activityActions } from './activity.js';
import { MANY_COMPANIES_SIZES } from './company.js';
import { type Sandbox, startSandbox } from './index.js';
import { describeIssues, type FaultsInput, faultsSchema, type SandboxOptions } from './options.js';
import { startShoptetTwin } from './shoptet/shoptet-twin.js';

interface FlagSpec {
  env?: string;
  value: string;
  description: string;
}

/** Every flag, its environment variable and its meaning (printed by `--help`). */
export const sandboxFlags: Record<string, FlagSpec> = {
  port: {
    env: ENV.sandboxPort,
    value: '<n>',
    description: 'TCP port (0 = any free port). Default 4010 on the CLI.',
  },
  host: { env: ENV.sandboxHost, value: '<ip>', description: 'Interface to listen on. Default 127.0.0.1.' },
  'shoptet-port': {
    value: '<n>',
    description:
      'Also serve the Shoptet twin on this port (0 = any): token INTAKE_SHOPTET_TOKEN, signature key INTAKE_SHOPTET_SIGNATURE_KEY (demo values printed when unset).',
  },
  seed: {
    env: ENV.sandboxSeed,
    value: '<n>',
    description: 'Seed of the demo company (same seed, same data). Default 1.',
  },
  companies: {
    value: '<n>',
    description:
      'Companies served, each with its own data (seed + k − 1) and credentials; printed at start. Default 1.',
  },
  variant: {
    env: ENV.sandboxVariant,
    value: 'sk|cz',
    description:
      'National variant served: sk (the Slovak contract) or cz (the public OpenAPI of the Czech service). Default sk.',
  },
  documents: {
    env: ENV.sandboxDocuments,
    value: '<n>',
    description:
      'Seeded documents in total over the 11 types (per company). Default 300; 40 with --companies above 1.',
  },
  partners: {
    env: ENV.sandboxPartners,
    value: '<n>',
    description: 'Seeded business partners (per company). Default 40; 8 with --companies above 1.',
  },
  'max-page-size': {
    env: ENV.sandboxMaxPageSize,
    value: '<n>',
    description: 'Largest PageSize served; larger requests are silently capped. Default 100.',
  },
  precision: {
    env: ENV.sandboxPrecision,
    value: 'ms|s',
    description: 'ModifiedDate precision: milliseconds or whole seconds. Default ms.',
  },
  'isdoc-delay-ms': {
    env: ENV.sandboxIsdocDelayMs,
    value: '<ms>',
    description: 'ISDOC answers 204 until this long after creation. Default 0.',
  },
  'token-lifetime': {
    env: ENV.sandboxTokenLifetime,
    value: '<s>',
    description: 'expires_in of issued tokens, seconds. Default 3600.',
  },
  activity: {
    env: ENV.sandboxActivity,
    value: '<per s>',
    description: 'Activity generator rate (actions per second); 0 = off. Default 0.',
  },
  'activity-weights': {
    env: ENV.sandboxActivityWeights,
    value: '<action=w,…>',
    description:
      "Weights of the generator's actions over the defaults, e.g. payInvoice=3,moveDueDate=1 (createOrder 0.45, editDocument 0.25, issueInvoice 0.2, payInvoice 0.1, moveDueDate 0).",
  },
  'latency-ms': { value: '<ms>', description: 'Fault: fixed latency added to every /v1 answer.' },
  'jitter-ms': { value: '<ms>', description: 'Fault: random extra latency, uniform in [0, jitter].' },
  'rate-limit': {
    value: '<capacity>:<per s>',
    description: 'Fault: token bucket per credential; empty bucket → 429 + Retry-After.',
  },
  'random-429': { value: '<0..1>', description: 'Fault: probability of a random 429.' },
  'random-5xx': { value: '<0..1>', description: 'Fault: probability of a random 500/502/503/504.' },
  'reset-rate': {
    value: '<0..1>',
    description: 'Fault: probability that the connection is reset without an answer.',
  },
  'slow-body-rate': {
    value: '<0..1>',
    description: 'Fault: probability that a body trickles out in chunks.',
  },
  'malformed-json-rate': {
    value: '<0..1>',
    description: 'Fault: probability that a 2xx JSON body is cut short.',
  },
  'clock-skew-ms': {
    value: '<ms>',
    description: "Fault: offset of the server's ModifiedDate clock (may be negative).",
  },
  'late-visibility-ms': {
    value: '<ms>',
    description: 'Fault: a change becomes visible this long after its ModifiedDate.',
  },
  'edits-while-paging': {
    value: '<0..1>',
    description: 'Fault: probability that a record is edited after each list page.',
  },
  faults: {
    env: ENV.sandboxFaults,
    value: '<json>',
    description: 'Fault settings as JSON (the admin API shape); flags above win.',
  },
  'path-overrides': {
    env: ENV.pathOverrides,
    value: '<json>',
    description: 'Operation id → path template: serve the same overridden paths the client is given.',
  },
};

/** The generator's weights of the sandbox CLI and `npm start` (SANDBOX_ACTIVITY_WEIGHTS changes them). */
const DEFAULT_CLI_WEIGHTS: Record<ActivityAction, number> = {
  createOrder: 0.45,
  editDocument: 0.25,
  issueInvoice: 0.2,
  payInvoice: 0.1,
  moveDueDate: 0,
};

const num = z.coerce.number();
const jsonText = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'expected JSON' });
    return z.NEVER;
  }
});
const flagsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(4010),
  host: z.string().default('127.0.0.1'),
  'shoptet-port': z.coerce.number().int().min(0).max(65535).optional(),
  seed: z.coerce.number().int().default(1),
  companies: z.coerce.number().int().min(1).max(100_000).default(1),
  variant: z.enum(serviceVariants).default('sk'),
  documents: z.coerce.number().int().min(0).max(2_000_000).optional(),
  partners: z.coerce.number().int().min(1).max(200_000).optional(),
  'max-page-size': z.coerce.number().int().positive().default(100),
  precision: z.enum(['ms', 's']).default('ms'),
  'isdoc-delay-ms': num.min(0).default(0),
  'token-lifetime': z.coerce.number().int().positive().default(3600),
  activity: num.min(0).max(1000).default(0),
  'activity-weights': z
    .string()
    .transform((text, ctx) => {
      const weights: Partial<Record<ActivityAction, number>> = {};
      for (const part of text
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const [name = '', value = ''] = part.split('=').map((p) => p.trim());
        const weight = Number(value);
        if (!(activityActions as readonly string[]).includes(name) || value === '' || !(weight >= 0)) {
          ctx.addIssue({
            code: 'custom',
            message: `expected action=weight (weight ≥ 0) with action one of ${activityActions.join(', ')}, got '${part}'`,
          });
          return z.NEVER;
        }
        weights[name as ActivityAction] = weight;
      }
      return weights;
    })
    .optional(),
  'latency-ms': num.min(0).optional(),
  'jitter-ms': num.min(0).optional(),
  'rate-limit': z
    .string()
    .regex(/^\d+:\d+(\.\d+)?$/, 'expected <capacity>:<refill per second>, e.g. 10:5')
    .optional(),
  'random-429': num.min(0).max(1).optional(),
  'random-5xx': num.min(0).max(1).optional(),
  'reset-rate': num.min(0).max(1).optional(),
  'slow-body-rate': num.min(0).max(1).optional(),
  'malformed-json-rate': num.min(0).max(1).optional(),
  'clock-skew-ms': num.optional(),
  'late-visibility-ms': num.min(0).optional(),
  'edits-while-paging': num.min(0).max(1).optional(),
  faults: jsonText.optional(),
  'path-overrides': jsonText.pipe(z.record(z.string(), z.string().startsWith('/'))).optional(),
});

export function sandboxHelp(): string {
  const lines = ['Usage: sandbox [options]', '', 'Starts the accounting-service sandbox.', '', 'Options:'];
  for (const [name, spec] of Object.entries(sandboxFlags)) {
    const left = `  --${name} ${spec.value}`;
    lines.push(`${left.padEnd(34)}${spec.description}${spec.env ? ` Env: ${spec.env}.` : ''}`);
  }
  lines.push(`${'  --help'.padEnd(34)}Print this help.`);
  return lines.join('\n');
}

export class SandboxCliError extends Error {
  override readonly name = 'SandboxCliError';
}

/** Turns argv and env into sandbox options (throws SandboxCliError naming the bad flag). */
export function parseSandboxArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): (SandboxOptions & { shoptetPort?: number }) | 'help' {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(Object.keys(sandboxFlags).map((k) => [k, { type: 'string' as const }])),
        help: { type: 'boolean' as const, short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new SandboxCliError((error as Error).message, { cause: error });
  }
  if (parsed.values.help) return 'help';
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(sandboxFlags)) {
    const fromEnv = spec.env ? env[spec.env] : undefined;
    const value = parsed.values[name] ?? fromEnv;
    if (value !== undefined) raw[name] = value;
  }
  const result = flagsSchema.safeParse(raw);
  if (!result.success) {
    throw new SandboxCliError(
      result.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '),
    );
  }
  const f = result.data;
  const faults: Record<string, unknown> = { ...((f.faults as Record<string, unknown> | undefined) ?? {}) };
  if (f['latency-ms'] !== undefined || f['jitter-ms'] !== undefined) {
    faults.latency = { baseMs: f['latency-ms'] ?? 0, jitterMs: f['jitter-ms'] ?? 0 };
  }
  if (f['rate-limit']) {
    const [capacity, refill] = f['rate-limit'].split(':').map(Number);
    faults.rateLimit = { capacity, refillPerSecond: refill };
  }
  const map: [keyof typeof f, string][] = [
    ['random-429', 'random429Rate'],
    ['random-5xx', 'random5xxRate'],
    ['reset-rate', 'connectionResetRate'],
    ['slow-body-rate', 'slowBodyRate'],
    ['malformed-json-rate', 'malformedJsonRate'],
    ['clock-skew-ms', 'clockSkewMs'],
    ['late-visibility-ms', 'lateVisibilityMs'],
  ];
  for (const [flag, key] of map) if (f[flag] !== undefined) faults[key] = f[flag];
  if (f['edits-while-paging'] !== undefined)
    faults.editsWhilePaging = { rate: f['edits-while-paging'], count: 1 };
  const checked = faultsSchema.safeParse(faults);
  if (!checked.success) throw new SandboxCliError(`--faults: ${describeIssues(checked.error)}`);
  const sizes = f.companies > 1 ? MANY_COMPANIES_SIZES : { documents: 300, partners: 40 };
  return {
    port: f.port,
    host: f.host,
    seed: f.seed,
    companies: f.companies,
    variant: f.variant,
    sizes: {
      documents: f.documents ?? sizes.documents,
      partners: f.partners ?? sizes.partners,
      perCollection: {},
    },
    maxPageSize: f['max-page-size'],
    timestampPrecision: f.precision,
    isdocReadyDelayMs: f['isdoc-delay-ms'],
    tokenLifetimeSeconds: f['token-lifetime'],
    activity: {
      enabled: f.activity > 0,
      ratePerSecond: f.activity > 0 ? f.activity : 1,
      weights: { ...DEFAULT_CLI_WEIGHTS, ...f['activity-weights'] },
    },
    faults: faults as FaultsInput,
    pathOverrides: f['path-overrides'] ?? {},
    ...(f['shoptet-port'] !== undefined ? { shoptetPort: f['shoptet-port'] } : {}),
  };
}

export interface SandboxCliIo {
  env?: Record<string, string | undefined>;
  stdout?: (text: string) => void;
}

/**
 * Runs the sandbox from argv. Resolves with the running sandbox (the caller closes it on
 * SIGINT), or `undefined` after printing `--help`. Bad flags throw `SandboxCliError`.
 */
export async function runSandboxCli(
  argv: readonly string[],
  io: SandboxCliIo = {},
): Promise<Sandbox | undefined> {
  const out = io.stdout ?? ((text: string) => process.stdout.write(`${text}\n`));
  const options = parseSandboxArgs(argv, io.env ?? process.env);
  if (options === 'help') {
    out(sandboxHelp());
    return undefined;
  }
  const { shoptetPort, ...sandboxOptions } = options;
  const sandbox = await startSandbox(sandboxOptions);
  const shoptet =
    shoptetPort === undefined ? undefined : await startTwinFor(shoptetPort, io.env ?? process.env);
  out(
    [
      `sandbox listening`,
      `  base URL:  ${sandbox.baseUrl}`,
      // Each address on its own line: the banner fits 80 columns with any port.
      `  auth URL:  ${sandbox.authUrl}`,
      `  token:     POST ${sandbox.authUrl}/connect/token`,
      `  admin:     ${sandbox.baseUrl}/_sandbox/${sandbox.companies > 1 ? '   (?company=k: company k)' : ''}`,
      ...credentialLines(sandbox),
      `  variant ${options.variant ?? 'sk'}, seed ${options.seed}, ${options.sizes?.documents} documents, ${options.sizes?.partners} partners` +
        (sandbox.companies > 1 ? ' per company' : '') +
        (options.activity?.enabled ? `, activity ${options.activity.ratePerSecond}/s` : ''),
      ...(shoptet?.lines ?? []),
    ].join('\n'),
  );
  if (!shoptet) return sandbox;
  const close = sandbox.close.bind(sandbox);
  sandbox.close = async () => {
    await shoptet.twin.close();
    await close();
  };
  return sandbox;
}

/** Demo values of the Shoptet twin, printed on purpose: valid against this twin only. */
const DEMO_SHOPTET_TOKEN = 'demo-shoptet-private-api-token-0123456789';
const DEMO_SHOPTET_KEY = '8a5e881b19ad6cc0bc986587b22e30be';

async function startTwinFor(port: number, env: Record<string, string | undefined>) {
  const token = env.INTAKE_SHOPTET_TOKEN;
  const key = env.INTAKE_SHOPTET_SIGNATURE_KEY;
  const twin = await startShoptetTwin({
    port,
    token: token ?? DEMO_SHOPTET_TOKEN,
    signatureKey: key ?? DEMO_SHOPTET_KEY,
  });
  return {
    twin,
    lines: [
      `shoptet twin listening`,
      `  API URL:   ${twin.url}   (INTAKE_SHOPTET_API_URL)`,
      `  token:     ${token ? 'INTAKE_SHOPTET_TOKEN of the environment' : DEMO_SHOPTET_TOKEN}`,
      `  signature key: ${key ? 'INTAKE_SHOPTET_SIGNATURE_KEY of the environment' : DEMO_SHOPTET_KEY}`,
    ],
  };
}

/** Companies listed one by one up to this many; beyond, the first ones and the rule for the rest. */
const LISTED_COMPANIES = 10;

/**
 * The demo credentials, printed on purpose: they are test fixtures of this sandbox (fixed, valid
 * against it only), not secrets. One company: as always; many: a line per company.
 */
export function credentialLines(sandbox: Pick<Sandbox, 'companies' | 'credentialsOf'>): string[] {
  if (sandbox.companies === 1) {
    const c = sandbox.credentialsOf(1);
    return [
      '  demo credentials (test fixtures, valid against this sandbox only):',
      `    Api-Key:        ${c.apiKey}`,
      `    read-only key:  ${c.readOnlyApiKey}`,
      `    client id:      ${c.clientId}`,
      `    client secret:  ${c.clientSecret}`,
      `    scope:          ${c.scope}`,
    ];
  }
  const shown = Math.min(sandbox.companies, LISTED_COMPANIES);
  // At most 80 columns a line, whatever the number of companies.
  const lines = [
    `  ${sandbox.companies} companies; demo credentials (test fixtures, valid against this sandbox`,
    `  only, each for its own company's data), scope ${sandbox.credentialsOf(1).scope}:`,
    '    company: Api-Key · client id / client secret',
  ];
  for (let k = 1; k <= shown; k++) {
    const c = sandbox.credentialsOf(k);
    lines.push(`    ${k}: ${c.apiKey} · ${c.clientId} / ${c.clientSecret}`);
  }
  if (sandbox.companies > shown) {
    lines.push(
      `    ${shown + 1}…${sandbox.companies}: sandbox-k-api-key · sandbox-k-client / sandbox-k-secret`,
    );
  }
  lines.push(
    '  read-only twins (company 1: sandbox-readonly-…): sandbox-k-readonly-api-key,',
    '    client sandbox-k-readonly-client / sandbox-k-readonly-secret',
  );
  return lines;
}

// Run directly: `tsx sandbox/main.ts --port 4010 --seed 1`.
if (import.meta.url === `file://${process.argv[1]}`) {
  runSandboxCli(process.argv.slice(2)).then(
    (sandbox) => {
      if (!sandbox) return;
      const stop = () => void sandbox.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(2);
    },
  );
}
