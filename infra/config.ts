/**
 * The deployment's configuration, in one typed place.
 *
 * Every setting has a name (`scheduleRateMinutes`), and is read, in this order, from CDK context
 * (`npx cdk deploy -c scheduleRateMinutes=5`, or `cdk.json` → `context`), from the environment
 * variable `ACCOUNTING_EVENTS_<UPPER_SNAKE_NAME>` (`ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES=5`), or
 * falls back to its default. Values from the command line and the environment are strings; the
 * schema coerces them. One error lists every malformed setting with what was expected.
 */

import * as z from 'zod';
import {
  type CollectionName,
  DEFAULT_SERVICE_VARIANT,
  defaultPolledCollectionsFor,
  isCollectionName,
  isCollectionOf,
  serviceVariants,
} from '../functions/accounting/collections.js';
import { isSecureServiceUrl } from '../functions/accounting/config.js';
import { loadActionsConfig } from '../functions/core/actions/config.js';
import { CONNECTION_SOURCE_PREFIX } from '../functions/core/connection.js';
import { DeliveryTargetError, parseTargetSpecs } from '../functions/core/delivery/delivery-targets.js';
import { loadIntakeConfig } from '../functions/core/intake/intake-config.js';
import { ConfigError, type Env, issuesOf, loadSections } from '../functions/shared/config.js';
import { ENV } from '../functions/shared/env-names.js';
import { INTAKE_ENV } from '../functions/shared/intake-env-names.js';
import type { LogLevel } from '../functions/shared/logger.js';

/** Action settings the deployment sets itself: resource names and the route's DLQ (the connection is `connection`). */
const INFRA_OWNED_ACTION_SETTINGS: ReadonlySet<string> = new Set([
  ENV.actionsIdempotencyTable,
  ENV.actionsArchiveBucket,
  ENV.actionsStateTable,
  ENV.actionsDeadLetterQueueUrl,
]);

/** `ACTIONS_*` settings a deployment may pass through to the action functions. */
export const ACTION_SETTING_NAMES: ReadonlySet<string> = new Set(
  Object.values(ENV).filter((name) => name.startsWith('ACTIONS_') && !INFRA_OWNED_ACTION_SETTINGS.has(name)),
);

/** `INTAKE_*` mapping settings a deployment may pass to the intake functions (not secrets, not resource names). */
export const INTAKE_SETTING_NAMES: ReadonlySet<string> = new Set(
  Object.values(INTAKE_ENV).filter(
    (name) =>
      ![
        INTAKE_ENV.shopifySecret,
        INTAKE_ENV.woocommerceSecret,
        INTAKE_ENV.genericSecret,
        INTAKE_ENV.secretsSecret,
        INTAKE_ENV.queueUrl,
      ].includes(name as never),
  ),
);

/** `LOG_LEVEL` values the functions' logger knows; any other value would silently fall back to info. */
const FUNCTION_LOG_LEVELS = [
  'DEBUG',
  'INFO',
  'WARN',
  'ERROR',
  'SILENT',
] as const satisfies readonly Uppercase<LogLevel>[];

/** CloudWatch Logs retention values the service accepts (days). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** A service URL: https (plain http only on a loopback host, where no credential leaves the machine). */
const serviceUrl = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
  .refine(isSecureServiceUrl, { error: 'expected https (plain http only on localhost, 127.0.0.1 or ::1)' });

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Accepts an array, or a comma-separated string (`-c collections=IssuedInvoices,ReceivedOrders`). */
const stringList = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item.length > 0)
      : value,
  z.array(z.string()),
);

/** Accepts an object, or its JSON text (context and environment values are strings). */
const jsonObject = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value; // the schema reports "expected object"
    }
  }, schema);

const collectionList = stringList.pipe(
  z
    .array(
      z.string().refine(isCollectionName, {
        error: (issue) =>
          `unknown collection '${String(issue.input)}' (see functions/accounting/collections.ts)`,
      }),
    )
    .min(1, 'expected at least one collection'),
);

/** Region of a deployment that names none (synth without credentials included). */
export const DEFAULT_REGION = 'eu-central-1';

const DAY_SECONDS = 86_400;

/** An archive retention of 0 keeps events forever: idempotency records then last 100 years. */
const FOREVER_DAYS = 36_500;

/**
 * The longest time after an effect that its event can come back: a replay from the bus archive,
 * or a redrive from a dead-letter queue (kept `deadLetterRetentionDays`) whose message then waits
 * up to `redriveWindowDays` in the action queue.
 */
export function replayHorizonDays(
  config: Pick<InfraConfig, 'eventArchiveRetentionDays' | 'deadLetterRetentionDays' | 'redriveWindowDays'>,
): number {
  const archive = config.eventArchiveRetentionDays === 0 ? FOREVER_DAYS : config.eventArchiveRetentionDays;
  return Math.max(archive, config.deadLetterRetentionDays + config.redriveWindowDays);
}

/**
 * How long an idempotency record lasts: the replay horizon plus one day (EventBridge's own retries
 * of a rule target last up to 24 h), so no replay or redrive repeats an effect.
 */
export function idempotencyExpirySeconds(config: Parameters<typeof replayHorizonDays>[0]): number {
  return (replayHorizonDays(config) + 1) * DAY_SECONDS;
}

const baseInfraConfigSchema = z.object({
  /** Names every resource (`accounting-events-<stage>-…`); one deployment per stage and account/region. */
  stage: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,19}$/, 'expected lowercase letters, digits and dashes, starting with a letter')
    .default('prod'),
  /** Connection name: the event source becomes `accounting.<connection>`. */
  connection: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'expected lowercase letters, digits and dashes')
    .default('default'),
  /** Poll interval in minutes (EventBridge Scheduler's minimum is 1). */
  scheduleRateMinutes: intIn(1, 1440).default(1),
  /** Collections the poller watches. */
  collections: collectionList.optional(),
  /** National variant of the accounting service (`ACCOUNTING_SERVICE_VARIANT` of every function). */
  serviceVariant: z
    .enum(serviceVariants, { error: `expected one of ${serviceVariants.join(', ')}` })
    .default(DEFAULT_SERVICE_VARIANT),
  /** Object Lock mode of the ISDOC archive; `OFF` for dev stages (Object Lock itself cannot be removed later). */
  archiveRetentionMode: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.toUpperCase() : v),
      z.enum(['COMPLIANCE', 'GOVERNANCE', 'OFF']),
    )
    .default('COMPLIANCE'),
  /** Default retention of every archived object version, in years. */
  archiveRetentionYears: intIn(1, 100).default(10),
  /** Days after which archived objects move to S3 Glacier Instant Retrieval (0 = never). */
  archiveGlacierIrAfterDays: intIn(0, 36500).default(90),
  /** Days after which archived objects move to S3 Glacier Deep Archive (0 = never). */
  archiveDeepArchiveAfterDays: intIn(0, 36500).default(365),
  /** Days before claim-check objects (large event payloads) expire. */
  claimCheckExpiryDays: intIn(1, 365).default(7),
  /** Days the event bus archive keeps events for replay (0 = indefinitely). */
  eventArchiveRetentionDays: intIn(0, 36500).default(30),
  /** Days a dead-letter queue keeps a message (SQS allows at most 14). */
  deadLetterRetentionDays: intIn(1, 14).default(14),
  /**
   * Days a message redriven from a dead-letter queue may still wait in its action queue: the action
   * queues keep messages this long.
   */
  redriveWindowDays: intIn(1, 14).default(4),
  /** Region of both stacks (also of an offline synth). */
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'expected an AWS region such as eu-central-1')
    .default(DEFAULT_REGION),
  /** Retention of every function's log group, in days. */
  logRetentionDays: z.coerce
    .number()
    .refine((v) => (LOG_RETENTION_DAYS as readonly number[]).includes(v), {
      error: `expected one of ${LOG_RETENTION_DAYS.join(', ')}`,
    })
    .default(30),
  /** Log level of every function: the levels of its logger (functions/shared/logger.ts). */
  logLevel: z
    .preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(FUNCTION_LOG_LEVELS))
    .default('INFO'),
  /** `RETAIN` keeps tables and buckets when the stack is deleted; `DESTROY` deletes the tables (dev stages). */
  removalPolicy: z
    .preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(['RETAIN', 'DESTROY']))
    .default('RETAIN'),
  pollerMemoryMb: intIn(128, 10240).default(512),
  pollerTimeoutSeconds: intIn(10, 900).default(120),
  /** Reserved concurrency of the poller: 1 keeps ticks from overlapping; 0 = unreserved. */
  pollerReservedConcurrency: intIn(0, 1000).default(1),
  actionMemoryMb: intIn(128, 10240).default(512),
  /** SQS batch size of every action's event source. */
  actionBatchSize: intIn(1, 10).default(5),
  /** Per-route override of the routing table's `maxConcurrency`, e.g. `{"transfer-orders": 2}` (2–1000). */
  routeConcurrency: jsonObject(z.record(z.string(), intIn(2, 1000))).default({}),
  /** Alarm when the poller's lag (now − watermark) exceeds this many seconds. */
  lagAlarmSeconds: intIn(60, 86400).default(900),
  /** Alarm when the poller fails this many times within 5 minutes. */
  pollerErrorsThreshold: intIn(1, 1000).default(1),
  /** Alarm when an action function fails this many times within 5 minutes. */
  actionFailuresThreshold: intIn(1, 1000).default(1),
  /** Alarm when the oldest message of an action queue is older than this many seconds. */
  queueAgeAlarmSeconds: intIn(60, 1209600).default(900),
  /**
   * HTTP consumers the events are delivered to (API destinations): `URL[,PATTERN]` items joined
   * by `;`, or a JSON array of them; PATTERN as `run --deliver-to` takes it (default every event).
   */
  deliveries: z
    .preprocess((value) => {
      if (typeof value !== 'string') return value;
      const text = value.trim();
      if (text.startsWith('[')) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          return value;
        }
      }
      return text
        ? text
            .split(';')
            .map((item) => item.trim())
            .filter(Boolean)
        : [];
    }, z.array(z.string()))
    .superRefine((specs, ctx) => {
      try {
        parseTargetSpecs(specs);
      } catch (error) {
        if (!(error instanceof DeliveryTargetError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
      }
    })
    .default([]),
  /** Retries of a delivery after its first attempt (EventBridge retries 429, 5xx and timeouts). */
  deliveryRetryAttempts: intIn(0, 185).default(4),
  /** Requests per second each consumer gets at most. */
  deliveryRateLimitPerSecond: intIn(1, 300).default(10),
  /** E-mail address subscribed to the alarm topic (optional; confirm the subscription mail). */
  alarmEmail: z.email('expected an e-mail address').optional(),
  /** Base URL of the accounting service (the functions' default applies when unset). */
  accountingBaseUrl: serviceUrl.optional(),
  /** Token URL for OAuth client credentials (the functions' default applies when unset). */
  accountingAuthUrl: serviceUrl.optional(),
  /**
   * Settings of the actions, as the `ACTIONS_*` variables of functions/core/actions/config.ts:
   * which transfers run, ISDOC archiving, and the e-invoicing rules (`ACTIONS_EINVOICE_PARTNERS`,
   * `ACTIONS_EMAIL_PARTNERS`, `ACTIONS_PARTNER_FIELD`, …). The routing table is built from them and
   * every action function receives them, so routing and handlers cannot disagree.
   */
  actions: jsonObject(
    z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
      .superRefine((settings, ctx) => {
        for (const key of Object.keys(settings)) {
          if (!ACTION_SETTING_NAMES.has(key)) {
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `unknown or infrastructure-owned action setting (expected one of ${[...ACTION_SETTING_NAMES].join(', ')})`,
            });
          }
        }
      }),
  ).default({}),
  /** The e-shop order intake (HTTP API → verify → FIFO queue → import); `false` leaves it out. */
  intakeEnabled: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.union([z.boolean(), z.enum(['true', 'false'])]),
    )
    .transform((v) => v === true || v === 'true')
    .default(true),
  /**
   * Many connections: the connection registry table, the rate-limit table and the fan-out (one
   * Scheduler schedule → dispatcher → SQS FIFO queue, one message group per connection → poller of
   * one connection per message) replace the single-connection poller (docs/deploy.md).
   */
  connectionRegistry: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.union([z.boolean(), z.enum(['true', 'false'])]),
    )
    .transform((v) => v === true || v === 'true')
    .default(false),
  /** Poll requests per invocation of the connection poller (SQS batch size; each is one connection). */
  connectionPollerBatchSize: intIn(1, 10).default(5),
  /** Most concurrent invocations of the connection poller (the event source's maximum concurrency). */
  connectionPollerMaxConcurrency: intIn(2, 1000).default(20),
  /** Custom metrics per connection (`connection` dimension, four metrics each; docs/deploy.md has the cost). */
  perConnectionMetrics: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.union([z.boolean(), z.enum(['true', 'false'])]),
    )
    .transform((v) => v === true || v === 'true')
    .default(true),
  /** Steady requests per second the intake API accepts (stage throttling); more answer 429. */
  intakeThrottleRate: intIn(1, 10000).default(20),
  /** Burst of requests the intake API accepts. */
  intakeThrottleBurst: intIn(1, 5000).default(40),
  /** Mapping settings of the intake, as the `INTAKE_*` variables of docs/intake.md (no secrets). */
  intakeSettings: jsonObject(
    z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
      .superRefine((settings, ctx) => {
        for (const key of Object.keys(settings)) {
          if (!INTAKE_SETTING_NAMES.has(key)) {
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `unknown, secret or infrastructure-owned intake setting (expected one of ${[...INTAKE_SETTING_NAMES].join(', ')})`,
            });
          }
        }
      }),
  ).default({}),
});

export const infraConfigSchema = baseInfraConfigSchema
  .superRefine((config, ctx) => {
    const foreign = (config.collections ?? []).filter((c) => !isCollectionOf(config.serviceVariant, c));
    if (foreign.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['collections'],
        message: `${foreign.join(', ')} not in service variant ${config.serviceVariant}`,
      });
    }
  })
  .superRefine((config, ctx) => {
    const given = config.actions[ENV.actionsIdempotencyExpiresSeconds];
    const derived = idempotencyExpirySeconds(config);
    if (given !== undefined && !(Number(given) >= derived)) {
      ctx.addIssue({
        code: 'custom',
        path: ['actions', ENV.actionsIdempotencyExpiresSeconds],
        message: `expected at least ${derived} seconds: the replay horizon (event archive ${config.eventArchiveRetentionDays} days, or dead-letter retention ${config.deadLetterRetentionDays} + redrive window ${config.redriveWindowDays} days) plus one day; a shorter expiry lets a replay repeat an effect`,
      });
    }
  })
  .transform((config) => ({
    ...config,
    collections: (config.collections ?? [
      ...defaultPolledCollectionsFor(config.serviceVariant),
    ]) as CollectionName[],
  }));

export type InfraConfig = z.output<typeof infraConfigSchema>;
export type InfraConfigInput = z.input<typeof infraConfigSchema>;
export type InfraConfigKey = keyof InfraConfigInput;

export const INFRA_CONFIG_KEYS = Object.keys(baseInfraConfigSchema.shape) as InfraConfigKey[];

/** `scheduleRateMinutes` → `ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES`. */
export function envNameOf(key: string): string {
  return `ACCOUNTING_EVENTS_${key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

export interface InfraConfigSources {
  /** CDK context lookup (`node.tryGetContext`). */
  context: (key: string) => unknown;
  env: Readonly<Record<string, string | undefined>>;
}

/** Where a setting comes from, for an issue: `key (context 'key' or ACCOUNTING_EVENTS_KEY)[rest]`. */
function settingField(path: readonly PropertyKey[]): string {
  const [key, ...rest] = path.map(String);
  if (key === undefined) return '(config)';
  return `${key} (context '${key}' or ${envNameOf(key)})${rest.length > 0 ? `[${rest.join('.')}]` : ''}`;
}

/** The deployment's own section: every setting of the schema. */
function deploymentSection(raw: Record<string, unknown>): InfraConfig {
  const parsed = infraConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(issuesOf(parsed.error, settingField), { cause: parsed.error });
  return parsed.data as InfraConfig;
}

/**
 * A section the functions read (`actions`: the action settings, `intakeSettings`: the intake's),
 * checked with that section's own loader, as the functions will read it; its issues name the setting
 * and the variable. A value the deployment schema refuses is left to the deployment section.
 */
function functionSection(
  raw: Record<string, unknown>,
  key: 'actions' | 'intakeSettings',
  load: (env: Env) => unknown,
) {
  const settings = baseInfraConfigSchema.shape[key].safeParse(raw[key]);
  if (!settings.success) return;
  try {
    load(settings.data);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      error.issues.map((i) => ({ field: settingField([key, i.field]), expected: i.expected })),
      { cause: error },
    );
  }
}

/** Reads every setting from context, then the environment, then defaults; throws one `ConfigError` listing every problem of every section. */
export function loadInfraConfig(sources: InfraConfigSources): InfraConfig {
  const raw: Record<string, unknown> = {};
  for (const key of INFRA_CONFIG_KEYS) {
    const fromContext = sources.context(key);
    const value = fromContext !== undefined ? fromContext : sources.env[envNameOf(key)];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  return loadSections({
    deployment: () => deploymentSection(raw),
    actions: () => functionSection(raw, 'actions', loadActionsConfig),
    intake: () => functionSection(raw, 'intakeSettings', loadIntakeConfig),
  }).deployment;
}

/** The configuration with every default: what tests build from. */
export function defaultInfraConfig(overrides: Partial<InfraConfigInput> = {}): InfraConfig {
  return loadInfraConfig({ context: (key) => (overrides as Record<string, unknown>)[key], env: {} });
}

/** Prefix of the Secrets Manager secrets the connection poller may read (`<prefix>/connections/<name>`). */
export function connectionSecretsPrefix(config: Pick<InfraConfig, 'stage'>): string {
  return `${namePrefix(config)}/connections/`;
}

/** `accounting.<connection>`: the `source` of every event the poller publishes. */
export function eventSourceOf(config: Pick<InfraConfig, 'connection'>): string {
  return `accounting.${config.connection}`;
}

/**
 * The `source` values the deployment's rules match: its connection's, or with the connection
 * registry every connection's (`{ prefix: 'accounting.' }`, as EventBridge reads a pattern).
 */
export function ruleSourcesOf(config: Pick<InfraConfig, 'connection' | 'connectionRegistry'>): string[] {
  return config.connectionRegistry
    ? ([{ prefix: CONNECTION_SOURCE_PREFIX }] as unknown as string[])
    : [eventSourceOf(config)];
}

/** Prefix of every physical name. */
export function namePrefix(config: Pick<InfraConfig, 'stage'>): string {
  return `accounting-events-${config.stage}`;
}
