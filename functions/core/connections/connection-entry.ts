/**
 * One entry of the connection registry: a company whose accounting service this deployment polls
 * and acts on. The same schema validates the local registry file (`run --connections FILE`), the
 * DynamoDB registry on AWS and `connections add`. Credentials are never stored here, only a
 * reference to them (`credentialsSecret`): on AWS a Secrets Manager secret (ARN or name), locally
 * `env:NAME`, an environment variable. Either holds the credentials JSON
 * (`{"apiKey": "…"}` or `{"clientId": "…", "clientSecret": "…", "scope": "…"}`).
 */
import * as z from 'zod';
import {
  type CollectionName,
  DEFAULT_SERVICE_VARIANT,
  isCollectionOf,
  serviceVariants,
} from '#functions/accounting/collections.js';
import { isSecureServiceUrl } from '#functions/accounting/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { connectionEventSource, connectionSchema } from '../connection.js';
import { SEALED_PREFIX, SEALED_REFERENCE } from './sealed-credentials.js';

/** Scheduler's and CloudWatch's finest period: a connection is polled at most once a minute. */
export const MIN_POLL_INTERVAL_SECONDS = 60;
export const MAX_POLL_INTERVAL_SECONDS = 86_400;

export const CONNECTION_DEFAULTS = {
  variant: DEFAULT_SERVICE_VARIANT,
  pollIntervalSeconds: 60,
  paused: false,
  rateLimit: { requestsPerSecond: 5, burst: 10 },
} as const;

const serviceUrl = (what: string) =>
  z
    .string({ error: `expected ${what} (an https URL, or http on a loopback host)` })
    .refine(isSecureServiceUrl, { error: `expected ${what} (an https URL, or http on a loopback host)` })
    .transform((s) => s.replace(/\/+$/, ''));

/**
 * A custom EventBridge `source` of one connection's events: printable, at most 256 characters, and
 * not in the `aws.` namespace EventBridge keeps for AWS services.
 */
export const eventSourceSchema = z
  .string({ error: 'expected an event source (letters, digits, `.`, `-`, `_`, `/`; at most 256)' })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,255}$/, {
    error: 'expected an event source (letters, digits, `.`, `-`, `_`, `/`; at most 256)',
  })
  .refine((s) => !s.startsWith('aws.'), { error: 'expected a source outside aws. (kept for AWS services)' });

/**
 * The reference of the deployment's own credentials: in its environment (`ACCOUNTING_API_KEY`, or
 * `ACCOUNTING_CLIENT_ID`/`_SECRET`) or in the secret `ACCOUNTING_CREDENTIALS_SECRET` names. Only
 * the entry of a single-company deployment (the environment-backed registry) may use it.
 */
export const DEPLOYMENT_CREDENTIALS = 'deployment';

const SECRET_REFERENCE_EXPECTED =
  'expected a secret reference: env:NAME, ssm:/PARAMETER, sealed:KEY:IV:DATA, or a Secrets Manager ARN or name';

/**
 * `env:NAME` (local), `ssm:/<prefix>/connections/<name>` (an SSM Parameter Store SecureString),
 * `sealed:<keyId>:<iv>:<data>` (the credentials sealed under a data key of the deployment,
 * sealed-credentials.ts), or a Secrets Manager ARN or name (AWS). Never the plaintext secret.
 */
export const credentialsSecretRefSchema = z
  .string({
    error: SECRET_REFERENCE_EXPECTED,
  })
  .trim()
  .regex(
    /^(env:[A-Za-z_][A-Za-z0-9_]*|sealed:[\w:-]{1,4100}|ssm:\/[\w/.-]{1,1010}|arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+|[\w/+=.@-]{1,512})$/,
    {
      error: SECRET_REFERENCE_EXPECTED,
    },
  );

/** The environment variable a connection's `env:` reference must name: `<NAME>_CREDENTIALS`. */
export function credentialsVariableOf(name: string): string {
  return `${name.toUpperCase().replaceAll('-', '_')}_CREDENTIALS`;
}

/**
 * Why `reference` is not the connection's own secret, or undefined when it is. A reference is
 * bound to its connection's name, so no entry can borrow another connection's credentials:
 * `env:<NAME>_CREDENTIALS` (the name upper-cased, `-` as `_`), an SSM parameter
 * `ssm:/<prefix>/connections/<name>`, or a Secrets Manager secret named `<prefix>/connections/<name>`
 * (by name, or by its full ARN, which ends in `-` and six characters).
 */
export function secretReferenceProblem(name: string, reference: string): string | undefined {
  const ref = reference.trim();
  // Bound to no name: whether an entry may use it is the credentials resolver's decision.
  if (ref === DEPLOYMENT_CREDENTIALS) return undefined;
  // Bound by its cipher: the name is authenticated with the ciphertext, so another entry's fails to open.
  if (ref.startsWith(SEALED_PREFIX)) {
    return SEALED_REFERENCE.test(ref)
      ? undefined
      : 'expected sealed:<keyId>:<iv>:<data> as `connections add --seal-credentials` writes it';
  }
  if (ref.startsWith('env:')) {
    const expected = credentialsVariableOf(name);
    return ref === `env:${expected}` ? undefined : `expected env:${expected} (the connection's own variable)`;
  }
  const suffix = `/connections/${name}`;
  if (ref.startsWith('ssm:')) {
    const parameter = ref.slice('ssm:'.length);
    return parameter.endsWith(suffix) && parameter.length > suffix.length + 1
      ? undefined
      : `expected an SSM parameter named /<prefix>/connections/${name}`;
  }
  const secretName = ref.startsWith('arn:') ? ref.split(':secret:')[1]?.replace(/-[A-Za-z0-9]{6}$/, '') : ref;
  if (secretName?.endsWith(suffix) && secretName.length > suffix.length) {
    return undefined;
  }
  return `expected a Secrets Manager secret named <prefix>/connections/${name} (by name or full ARN)`;
}

export const rateLimitSchema = z.object({
  requestsPerSecond: z
    .number({ error: 'expected requests per second (a positive number)' })
    .positive({ error: 'expected requests per second (a positive number)' })
    .max(1000, { error: 'expected at most 1000 requests per second' }),
  burst: z
    .number({ error: 'expected a burst size (a positive integer)' })
    .int({ error: 'expected a burst size (a positive integer)' })
    .positive({ error: 'expected a burst size (a positive integer)' })
    .max(10_000, { error: 'expected a burst of at most 10000' }),
});
export type RateLimit = z.infer<typeof rateLimitSchema>;

/** Settings of the deployment, never of one connection: where the stores are and how long records live. */
export const DEPLOYMENT_ACTION_SETTINGS: readonly string[] = [
  ENV.actionsIdempotencyTable,
  ENV.actionsIdempotencyExpiresSeconds,
  ENV.actionsArchiveBucket,
  ENV.actionsStateTable,
  ENV.actionsDeadLetterQueueUrl,
];

/**
 * A connection's action settings as every reader checks them: `ACTIONS_*` names the connection
 * may set. Which names exist and what values they take is each action's own settings: the
 * registry's writers check them all (`checked-entry.ts`), an action function its own section when
 * it acts for the connection (so no function's bundle carries the others' settings).
 */
function actionSettingProblems(actions: Record<string, string>): Array<{ name: string; message: string }> {
  return Object.keys(actions).flatMap((name) =>
    DEPLOYMENT_ACTION_SETTINGS.includes(name)
      ? [{ name, message: 'a setting of the deployment, not of one connection' }]
      : ACTION_SETTING_NAME.test(name)
        ? []
        : [{ name, message: 'not an action setting (docs/actions.md)' }],
  );
}

const ACTION_SETTING_NAME = /^ACTIONS_[A-Z0-9_]+$/;

export const connectionEntrySchema = z
  .strictObject({
    name: connectionSchema.describe(
      'Unique name: event source `accounting.<name>`, checkpoint and archive keys.',
    ),
    variant: z
      .enum(serviceVariants, { error: `expected one of ${serviceVariants.join(', ')}` })
      .default(CONNECTION_DEFAULTS.variant)
      .describe('National variant of the service: endpoint catalog, collections, URL presets.'),
    baseUrl: serviceUrl('baseUrl')
      .optional()
      .describe('Service base URL; the variant preset when omitted (cz).'),
    authUrl: serviceUrl('authUrl').optional().describe('OAuth authority; the variant preset when omitted.'),
    credentialsSecret: credentialsSecretRefSchema.describe(
      'Where the credentials JSON is: `env:NAME` locally; on AWS `ssm:/<prefix>/connections/<name>`, a Secrets Manager ARN or name, or the credentials sealed under a data key of the deployment (`sealed:…`).',
    ),
    collections: z
      .array(z.string().min(1), { error: 'expected a list of collection names' })
      .min(1, { error: 'expected at least one collection' })
      .optional()
      .describe("Collections to poll; the variant's default poll set when omitted."),
    actions: z
      .record(
        z.string().regex(/^ACTIONS_[A-Z0-9_]+$/, { error: 'expected an ACTIONS_* setting name' }),
        z.string(),
      )
      .default({})
      .describe('Action settings for this connection, by their ACTIONS_* names (docs/actions.md).'),
    source: eventSourceSchema
      .optional()
      .describe(
        "The `source` of this connection's events: `accounting.<name>`, the only one a registry entry may have (another would publish as that connection, reaching its deliveries).",
      ),
    pollIntervalSeconds: z
      .number({
        error: `expected seconds between polls (${MIN_POLL_INTERVAL_SECONDS}…${MAX_POLL_INTERVAL_SECONDS})`,
      })
      .int({ error: 'expected whole seconds' })
      .min(MIN_POLL_INTERVAL_SECONDS, { error: `expected at least ${MIN_POLL_INTERVAL_SECONDS} seconds` })
      .max(MAX_POLL_INTERVAL_SECONDS, { error: `expected at most ${MAX_POLL_INTERVAL_SECONDS} seconds` })
      .default(CONNECTION_DEFAULTS.pollIntervalSeconds)
      .describe('Seconds between two polls of this connection (Scheduler and CloudWatch: at least 60).'),
    paused: z
      .boolean({ error: 'expected true or false' })
      .default(CONNECTION_DEFAULTS.paused)
      .describe('A paused connection stays registered but is neither polled nor acted on.'),
    rateLimit: rateLimitSchema
      .default(CONNECTION_DEFAULTS.rateLimit)
      .describe('Token bucket shared by the poller, the actions and the intake of this connection.'),
  })
  .superRefine((entry, ctx) => {
    const ownSource = connectionEventSource({ name: entry.name });
    if (entry.source !== undefined && entry.source !== ownSource) {
      ctx.addIssue({
        code: 'custom',
        path: ['source'],
        message: `expected ${ownSource} or none: a connection publishes under its own name only`,
      });
    }
    const secretProblem = secretReferenceProblem(entry.name, entry.credentialsSecret);
    if (secretProblem) ctx.addIssue({ code: 'custom', path: ['credentialsSecret'], message: secretProblem });
    for (const problem of actionSettingProblems(entry.actions)) {
      ctx.addIssue({ code: 'custom', path: ['actions', problem.name], message: problem.message });
    }
    for (const [i, name] of (entry.collections ?? []).entries()) {
      if (!isCollectionOf(entry.variant, name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['collections', i],
          message: `'${name}' is not a collection of the ${entry.variant} variant`,
        });
      }
    }
    if (entry.variant === 'sk' && entry.baseUrl === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: 'expected baseUrl (the sk variant has no public preset)',
      });
    }
  });

export type ConnectionEntryInput = z.input<typeof connectionEntrySchema>;
export type ConnectionEntry = z.output<typeof connectionEntrySchema> & {
  collections?: CollectionName[];
};

/** A malformed entry: names the entry and every bad setting, never a value. */
export class ConnectionEntryError extends Error {
  override readonly name = 'ConnectionEntryError';
  constructor(
    readonly entry: string,
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`connection '${entry}': ${problems.join('; ')}`, options);
  }
}

/** Validates one entry; `label` names it in the error when its own name is missing or bad. */
export function parseConnectionEntry(input: unknown, label?: string): ConnectionEntry {
  const result = connectionEntrySchema.safeParse(input);
  if (result.success) return result.data as ConnectionEntry;
  const name =
    typeof (input as { name?: unknown } | null)?.name === 'string'
      ? (input as { name: string }).name
      : undefined;
  throw new ConnectionEntryError(
    name ?? label ?? '(unnamed)',
    result.error.issues.map((i) => `${i.path.map(String).join('.') || '(entry)'}: ${i.message}`),
    { cause: result.error },
  );
}

/** The JSON Schema of one entry (docs/connections.schema.json is generated from it). */
export function connectionEntryJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(connectionEntrySchema, { target: 'draft-2020-12', io: 'input' }) as Record<
    string,
    unknown
  >;
}
