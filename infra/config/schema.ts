/**
 * The deployment's settings: one zod schema, each setting with its default and what it accepts,
 * plus the checks across settings. infra/config/load.ts reads them from context and environment.
 */
import * as z from 'zod';
import {
  type CollectionName,
  DEFAULT_SERVICE_VARIANT,
  defaultPolledCollectionsFor,
  isCollectionOf,
  serviceVariants,
} from '#functions/accounting/collections.js';
import { variantPresets } from '#functions/accounting/config.js';
import {
  DeliveryTargetError,
  deployedTargetChecks,
  parseTargetSpecs,
} from '#functions/core/delivery/delivery-targets.js';
import { ENV } from '#functions/shared/env-names.js';
import { ACTION_SETTING_NAMES, INTAKE_SETTING_NAMES } from './function-settings.js';
import { idempotencyExpirySeconds } from './replay-horizon.js';
import {
  collectionList,
  deliveryList,
  FUNCTION_LOG_LEVELS,
  flag,
  intIn,
  jsonObject,
  LOG_RETENTION_DAYS,
  serviceUrl,
  settingsRecord,
  upperCaseEnum,
} from './values.js';

/** Region of a deployment that names none (synth without credentials included). */
export const DEFAULT_REGION = 'eu-central-1';

/** Object Lock modes of the ISDOC archive (`OFF`: no Object Lock). */
export const ARCHIVE_RETENTION_MODES = ['COMPLIANCE', 'GOVERNANCE', 'OFF'] as const;
export type ArchiveRetentionMode = (typeof ARCHIVE_RETENTION_MODES)[number];

/** The stage whose archive is locked unless told otherwise: only when named (`-c stage=prod`). */
export const PRODUCTION_STAGE = 'prod';

/** The stage of a deployment that names none: a trial, never production by omission. */
export const DEFAULT_STAGE = 'trial';

/** The archive's Object Lock mode when none is configured: `GOVERNANCE` for `prod`, else `OFF`. */
export function defaultArchiveRetentionMode(stage: string): ArchiveRetentionMode {
  return stage === PRODUCTION_STAGE ? 'GOVERNANCE' : 'OFF';
}

/** Below the shortest tick (1 minute), with room for a tick that starts a few seconds late. */
export const DEFAULT_POLLER_TIMEOUT_SECONDS = 50;

export const baseInfraConfigSchema = z.object({
  /** Names every resource (`accounting-events-<stage>-…`); one deployment per stage and account/region. */
  stage: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,19}$/, 'expected lowercase letters, digits and dashes, starting with a letter')
    .default(DEFAULT_STAGE),
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
  /**
   * Object Lock mode of the ISDOC archive. Unset: `GOVERNANCE` for the `prod` stage (locked, but a
   * trial's objects can still be deleted with `s3:BypassGovernanceRetention`, and `COMPLIANCE` is a
   * later change of the default retention, not a new bucket), `OFF` for every other stage.
   * `COMPLIANCE` only when chosen: nobody, root included, can delete a version before it expires.
   */
  archiveRetentionMode: upperCaseEnum(ARCHIVE_RETENTION_MODES).optional(),
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
  /**
   * X-Ray active tracing of every function, with Powertools Tracer in the bundles (AWS SDK calls and
   * outgoing HTTP as subsegments). Off by default: traces are billed, and the tracer with the X-Ray
   * SDK adds about 120 KB to every bundle (the ISDOC archive then exceeds 1.5 MB).
   */
  tracing: flag().default(false),
  /**
   * A source map beside every bundle, and `--enable-source-maps`, so stack traces name the source
   * files. Off by default: a map is about four times its bundle, which then exceeds 1.5 MB.
   */
  sourceMaps: flag().default(false),
  /** Log level of every function: the levels of its logger (functions/shared/logger.ts). */
  logLevel: upperCaseEnum(FUNCTION_LOG_LEVELS).default('INFO'),
  /** `RETAIN` keeps tables and buckets when the stack is deleted; `DESTROY` deletes the tables (dev stages). */
  removalPolicy: upperCaseEnum(['RETAIN', 'DESTROY']).default('RETAIN'),
  pollerMemoryMb: intIn(128, 10240).default(512),
  /**
   * Poller timeout: shorter than one tick (`scheduleRateMinutes`), so one tick ends before the next
   * starts. The poller stops starting pages 15 s before it and resumes from its checkpoints.
   */
  pollerTimeoutSeconds: intIn(10, 900).default(DEFAULT_POLLER_TIMEOUT_SECONDS),
  /**
   * Reserved concurrency of the single-connection poller; 0 = unreserved (the default: an account
   * limited to 10 concurrent executions cannot reserve any). Overlapping ticks are safe without it:
   * checkpoint writes are conditional on the version read, so the later of two runs stops.
   */
  pollerReservedConcurrency: intIn(0, 1000).default(0),
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
   * HTTP consumers the events are delivered to: `URL[,PATTERN]` items joined by `;`, or a JSON
   * array of them and of `{ "url", "pattern"?, "connections"?, "name"? }` objects; PATTERN as
   * `run --deliver-to` takes it (default every event), `connections` the connections whose events
   * the target takes (default every one). https:// to a public host (see `deliveryPrivateTargets`).
   */
  deliveries: deliveryList.default([]),
  /**
   * Let delivery targets be on private and loopback addresses (10/8, 172.16/12, 192.168/16, ULA,
   * 127/8, ::1), named or resolved; never link-local or metadata ones. Off by default: a delivery
   * function next to the Lambda Runtime API (127.0.0.1:9001) and the account's private network
   * would carry events and signed requests there. Synth warns when it is on.
   */
  deliveryPrivateTargets: flag().default(false),
  /**
   * How deliveries are made: `function` (default) — per target a queue and the delivery function,
   * which signs each request per Standard Webhooks with the target's own secret; `api-destination`
   * — EventBridge API destinations, each target with its own API key header and no body signature.
   */
  deliveryVia: z
    .enum(['function', 'api-destination'], { error: 'expected function or api-destination' })
    .default('function'),
  /** Retries of a delivery after its first attempt (429, 5xx, network errors and timeouts are retried). */
  deliveryRetryAttempts: intIn(0, 185).default(4),
  /** API destinations only: requests per second each consumer gets at most. */
  deliveryRateLimitPerSecond: intIn(1, 300).default(10),
  /**
   * Keep the pollers' per-detail-type and per-collection metric dimensions (`EventsPublished` per
   * `detailType`, `WatermarkLagMs` per `collection`). Off by default: each distinct name and
   * dimension set is a custom metric billed by the month; without them the poller publishes one
   * series per metric (counts summed, the worst lag).
   */
  detailedMetrics: flag().default(false),
  /** The CloudWatch dashboard (a dashboard is billed by the month beyond an account's first three). */
  dashboard: flag().default(false),
  /**
   * Encrypt the alarm topic with a customer managed KMS key (billed by the month and per request).
   * Off by default: the topic then has no server-side encryption (CloudWatch cannot publish to a
   * topic under the AWS managed SNS key); its messages are alarm names and states, no business data.
   * Tables, buckets and queues use AWS owned or managed keys either way.
   */
  customerManagedKey: flag().default(false),
  /**
   * The alarms beyond those that guard against loss: queue age, function errors (failed messages
   * end in a dead-letter queue, which alarms anyway), throttles and dropped scheduled invocations,
   * intake function errors. Off by default; the loss alarms are always there (docs/deploy.md).
   */
  operationalAlarms: flag().default(false),
  /** E-mail address subscribed to the alarm topic (optional; confirm the subscription mail). */
  alarmEmail: z.email('expected an e-mail address').optional(),
  /**
   * Base URL of the accounting service. Unset: the variant's preset (`cz`); `sk` has none, so a
   * deployment without `connectionRegistry` is refused without it (each registry entry has its own).
   */
  accountingBaseUrl: serviceUrl.optional(),
  /** Token URL for OAuth client credentials (the functions' default applies when unset). */
  accountingAuthUrl: serviceUrl.optional(),
  /**
   * Settings of the actions, as the `ACTIONS_*` variables of functions/core/actions/config.ts:
   * which transfers run, ISDOC archiving, and the e-invoicing rules (`ACTIONS_EINVOICE_PARTNERS`,
   * `ACTIONS_EMAIL_PARTNERS`, `ACTIONS_PARTNER_FIELD`, …). The routing table is built from them and
   * every action function receives them, so routing and handlers cannot disagree.
   */
  actions: settingsRecord(ACTION_SETTING_NAMES, 'unknown or infrastructure-owned action setting').default({}),
  /** The e-shop order intake (HTTP API → verify → FIFO queue → import); `false` leaves it out. */
  intakeEnabled: flag().default(true),
  /**
   * Shoptet on the intake: the API token's secret (read by the import) and the reconciliation
   * sweep on a schedule (`INTAKE_SHOPTET_SWEEP_SECONDS` of `intakeSettings`; docs/intake.md).
   */
  intakeShoptet: flag().default(false),
  /**
   * Many connections: the connection registry table and the rate-limit table; the poller polls the
   * registry in shards, one Scheduler schedule per shard every minute (docs/deploy.md). Without it
   * the same poller polls the deployment's one connection, its registry of one.
   */
  connectionRegistry: flag().default(false),
  /**
   * Shards of the registry (scan segments), each polled by its own invocation every minute: about
   * one per 100 connections (a shard's connections are polled side by side).
   */
  connectionPollerShards: intIn(1, 1000).default(1),
  /** Custom metrics per connection (`connection` dimension, four metrics each; docs/deploy.md has the cost). */
  perConnectionMetrics: flag().default(false),
  /** Payment detection (`Paid`, `PartiallyPaid`, `Overdue` of issued invoices; docs/payments.md). */
  payments: flag().default(true),
  /** Steady requests per second the intake API accepts (stage throttling); more answer 429. */
  intakeThrottleRate: intIn(1, 10000).default(20),
  /** Burst of requests the intake API accepts. */
  intakeThrottleBurst: intIn(1, 5000).default(40),
  /** Mapping settings of the intake, as the `INTAKE_*` variables of docs/intake.md (no secrets). */
  intakeSettings: settingsRecord(
    INTAKE_SETTING_NAMES,
    'unknown, secret or infrastructure-owned intake setting',
  ).default({}),
});

export const infraConfigSchema = baseInfraConfigSchema
  .superRefine((config, ctx) => {
    // The deployment's one connection (a registry of one) needs a URL its variant does not preset;
    // without it the poller and the actions would fail at their first cold start, not here.
    const preset = variantPresets[config.serviceVariant].baseUrl;
    if (!config.connectionRegistry && preset === undefined && config.accountingBaseUrl === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['accountingBaseUrl'],
        message: `expected the service base URL (an https URL): service variant ${config.serviceVariant} has no preset, and without connectionRegistry the deployment's one connection takes it from this setting`,
      });
    }
  })
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
  .superRefine((config, ctx) => {
    // With the connection registry, every shard is ticked every minute (a connection's shortest interval).
    const tickSeconds = config.connectionRegistry ? 60 : config.scheduleRateMinutes * 60;
    // A rate or timeout the schema refused already has its own issue.
    if (!(tickSeconds >= 60 && config.pollerTimeoutSeconds >= 10)) return;
    if (config.pollerTimeoutSeconds >= tickSeconds) {
      const tick = config.connectionRegistry
        ? 'the shards of the connection registry are ticked every 60 s'
        : `scheduleRateMinutes ${config.scheduleRateMinutes} = ${tickSeconds} s`;
      ctx.addIssue({
        code: 'custom',
        path: ['pollerTimeoutSeconds'],
        message: `expected less than one tick (${tick}): a longer run overlaps the next tick`,
      });
    }
  })
  .superRefine((config, ctx) => {
    if (config.deliveryPrivateTargets) return;
    try {
      parseTargetSpecs(config.deliveries, deployedTargetChecks(false));
    } catch (error) {
      if (!(error instanceof DeliveryTargetError)) throw error;
      ctx.addIssue({
        code: 'custom',
        path: ['deliveries'],
        message: `${error.message} (deliveryPrivateTargets allows private and loopback hosts)`,
      });
    }
  })
  .superRefine((config, ctx) => {
    // One connection: a target scoped to other connections would never receive anything.
    if (config.connectionRegistry) return;
    config.deliveries.forEach((spec, i) => {
      if (typeof spec === 'string' || !spec.connections) return;
      if (!spec.connections.includes(config.connection)) {
        ctx.addIssue({
          code: 'custom',
          path: ['deliveries', i, 'connections'],
          message: `expected the deployment's connection '${config.connection}' (without connectionRegistry it is the only one)`,
        });
      }
    });
  })
  .transform((config) => ({
    ...config,
    archiveRetentionMode: config.archiveRetentionMode ?? defaultArchiveRetentionMode(config.stage),
    collections: (config.collections ?? [
      ...defaultPolledCollectionsFor(config.serviceVariant),
    ]) as CollectionName[],
  }));

export type InfraConfig = z.output<typeof infraConfigSchema>;
export type InfraConfigInput = z.input<typeof infraConfigSchema>;
export type InfraConfigKey = keyof InfraConfigInput;

export const INFRA_CONFIG_KEYS = Object.keys(baseInfraConfigSchema.shape) as InfraConfigKey[];
