/**
 * The poll options shared by every connection a poller polls (`POLLER_*`, docs/poller.md), and the
 * single-company deployment's connection name, variant, collections and source, read from the
 * environment: one section of the poller's configuration (`connections-config.ts`), also read by
 * the local runtime. Throws one `ConfigError` naming each bad variable.
 */
import * as z from 'zod';
import {
  type CollectionName,
  collectionNamesFor,
  DEFAULT_SERVICE_VARIANT,
  defaultPolledCollectionsFor,
  isCollectionOf,
  serviceVariants,
} from '../accounting/collections.js';
import { connectionSchema, DEFAULT_CONNECTION } from '../core/connection.js';
import { collectionListSchema, type PollOptions, pollOptionsSchema } from '../core/sync/poll-options.js';
import { ConfigError, type Env, parseEnvSection } from '../shared/config.js';
import { ENV } from '../shared/env-names.js';

export const POLLER_DEFAULTS = {
  connection: DEFAULT_CONNECTION,
  concurrency: 4,
  lookbackSeconds: 300,
  pageSize: 100,
  dedupeCapacity: 2000,
  minRemainingMs: 15_000,
  reconcileIntervalSeconds: 86_400,
  referenceIntervalSeconds: 3_600,
  paymentIntervalSeconds: 0,
  paymentReconcileIntervalSeconds: 21_600,
} as const;

export interface PollerSettings {
  options: PollOptions;
  collections: CollectionName[];
  concurrency: number;
}

const count = (what: string) =>
  z.coerce
    .number({ error: `expected ${what}` })
    .int(`expected ${what}`)
    .nonnegative(`expected ${what}`);
const positive = (what: string) => count(what).positive(`expected ${what}`);

const pollerEnvSchema = z.object({
  [ENV.connection]: connectionSchema.default(POLLER_DEFAULTS.connection),
  [ENV.eventSource]: z.string().min(1).optional(),
  [ENV.serviceVariant]: z
    .string()
    .optional()
    .transform((v) => v?.toLowerCase())
    .pipe(
      z
        .enum(serviceVariants, { error: `expected one of ${serviceVariants.join(', ')}` })
        .default(DEFAULT_SERVICE_VARIANT),
    ),
  [ENV.pollerCollections]: z
    .string()
    .optional()
    .transform((v) =>
      v === undefined
        ? undefined
        : v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
    )
    .pipe(collectionListSchema.optional()),
  [ENV.pollerConcurrency]: positive('a positive integer').default(POLLER_DEFAULTS.concurrency),
  [ENV.pollerLookbackSeconds]: count('a number of seconds ≥ 0').default(POLLER_DEFAULTS.lookbackSeconds),
  [ENV.pollerPageSize]: positive('a positive integer').optional(),
  [ENV.pageSize]: positive('a positive integer').optional(),
  [ENV.pollerDedupeCapacity]: positive('a positive integer').default(POLLER_DEFAULTS.dedupeCapacity),
  [ENV.pollerMinRemainingMs]: count('milliseconds ≥ 0').default(POLLER_DEFAULTS.minRemainingMs),
  [ENV.pollerReconcileIntervalSeconds]: count('a number of seconds ≥ 0 (0 = off)').default(
    POLLER_DEFAULTS.reconcileIntervalSeconds,
  ),
  [ENV.pollerReferenceIntervalSeconds]: count('a number of seconds ≥ 0').default(
    POLLER_DEFAULTS.referenceIntervalSeconds,
  ),
  [ENV.pollerPayments]: z.enum(['true', 'false'], { error: 'expected true or false' }).default('true'),
  [ENV.pollerPaymentIntervalSeconds]: count('a number of seconds ≥ 0 (0 = every cycle)').default(
    POLLER_DEFAULTS.paymentIntervalSeconds,
  ),
  [ENV.pollerPaymentReconcileIntervalSeconds]: count('a number of seconds ≥ 0 (0 = off)').default(
    POLLER_DEFAULTS.paymentReconcileIntervalSeconds,
  ),
  [ENV.pollerStartFrom]: z.iso
    .datetime({ offset: true, local: true, error: 'expected an ISO date-time' })
    .optional(),
  [ENV.eventMaxEntrySizeBytes]: positive('a size in bytes').optional(),
  [ENV.claimCheckBucket]: z.string().min(1).optional(),
});

/** The poller's section. Throws `ConfigError` naming each bad variable. */
export function loadPollerSettings(env: Env): PollerSettings {
  const e = parseEnvSection(pollerEnvSchema, env, { trim: true });
  const variant = e[ENV.serviceVariant];
  const collections = e[ENV.pollerCollections] ?? [...defaultPolledCollectionsFor(variant)];
  const foreign = collections.filter((c) => !isCollectionOf(variant, c));
  if (foreign.length > 0) {
    throw new ConfigError([
      {
        field: ENV.pollerCollections,
        expected: `${foreign.join(', ')} not in service variant ${variant}; expected some of ${collectionNamesFor(variant).join(', ')}`,
      },
    ]);
  }
  const options = pollOptionsSchema.parse({
    variant,
    connection: e[ENV.connection],
    ...(e[ENV.eventSource] ? { source: e[ENV.eventSource] } : {}),
    lookbackMs: e[ENV.pollerLookbackSeconds] * 1000,
    pageSize: e[ENV.pollerPageSize] ?? e[ENV.pageSize] ?? POLLER_DEFAULTS.pageSize,
    dedupeCapacity: e[ENV.pollerDedupeCapacity],
    minRemainingMs: e[ENV.pollerMinRemainingMs],
    reconcileIntervalMs: e[ENV.pollerReconcileIntervalSeconds] * 1000,
    referenceIntervalMs: e[ENV.pollerReferenceIntervalSeconds] * 1000,
    payments: e[ENV.pollerPayments] === 'true',
    paymentIntervalMs: e[ENV.pollerPaymentIntervalSeconds] * 1000,
    paymentReconcileIntervalMs: e[ENV.pollerPaymentReconcileIntervalSeconds] * 1000,
    ...(e[ENV.pollerStartFrom] ? { startFrom: e[ENV.pollerStartFrom] } : {}),
    ...(e[ENV.eventMaxEntrySizeBytes] ? { maxEventBytes: e[ENV.eventMaxEntrySizeBytes] } : {}),
    ...(e[ENV.claimCheckBucket] ? { claimBucket: e[ENV.claimCheckBucket] } : {}),
  });
  return {
    options,
    collections,
    concurrency: e[ENV.pollerConcurrency],
  };
}
