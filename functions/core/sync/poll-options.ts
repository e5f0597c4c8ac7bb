/**
 * Options of the change detector, validated with zod. Defaults are documented in docs/poller.md.
 */
import * as z from 'zod';
import {
  collectionNames,
  DEFAULT_SERVICE_VARIANT,
  isCollectionName,
  serviceVariants,
} from '#functions/accounting/collections.js';
import { connectionSchema } from '../connection.js';
import { DEFAULT_MAX_EVENT_BYTES } from '../events/claim-check.js';

const positiveInt = (what: string) =>
  z
    .number({ error: `expected ${what} (a number)` })
    .int()
    .positive();

export const pollOptionsSchema = z.object({
  /** Service variant: which collections exist and how each pages (`ACCOUNTING_SERVICE_VARIANT`). */
  variant: z.enum(serviceVariants).default(DEFAULT_SERVICE_VARIANT),
  /** Connection (company) name: part of every event and checkpoint key. */
  connection: connectionSchema,
  /** EventBridge `source`; default `accounting.<connection>`. */
  source: z.string().min(1).optional(),
  /** How far each read reaches back before the watermark (service clock), covering skew and late commits. */
  lookbackMs: z
    .number()
    .int()
    .nonnegative()
    .default(5 * 60_000),
  pageSize: positiveInt('a page size').default(100),
  /** Versions remembered inside the overlap for dedupe (bounded state in the checkpoint). */
  dedupeCapacity: positiveInt('a dedupe capacity').default(2000),
  /** Stop starting new pages when the function has less than this left. */
  minRemainingMs: z.number().int().nonnegative().default(15_000),
  /** Events larger than this (counted like EventBridge) carry `recordRef` instead of `record`. */
  maxEventBytes: positiveInt('a size in bytes').default(DEFAULT_MAX_EVENT_BYTES),
  /** Deletion reconciliation interval (our clock); 0 turns it off. */
  reconcileIntervalMs: z
    .number()
    .int()
    .nonnegative()
    .default(24 * 3_600_000),
  /** Reference lists (opt-in) are fully scanned at most this often. */
  referenceIntervalMs: z.number().int().nonnegative().default(3_600_000),
  /**
   * Payment detection (`Paid`, `PartiallyPaid`, `Overdue` of issued invoices and advance invoices):
   * off unless turned on (docs/payments.md). It runs for the payable collections that are polled.
   */
  payments: z.boolean().default(true),
  /** Payment state is checked at most this often (our clock); 0 = every poll cycle. */
  paymentIntervalMs: z.number().int().nonnegative().default(0),
  /**
   * How often every unpaid list is read in full to find invoices that left it unseen (deleted, or
   * paid while no change of theirs was listed); 0 turns it off.
   */
  paymentReconcileIntervalMs: z
    .number()
    .int()
    .nonnegative()
    .default(6 * 3_600_000),
  /** Where a first run starts (ISO date-time of the service); absent = backfill everything. */
  startFrom: z.iso.datetime({ offset: true, local: true }).optional(),
  /** Key prefixes in the object store. */
  claimPrefix: z.string().default('claims/'),
  statePrefix: z.string().default('sync/'),
  /** Bucket name written into `recordRef.bucket`. */
  claimBucket: z.string().optional(),
});
export type PollOptions = z.infer<typeof pollOptionsSchema>;
export type PollOptionsInput = z.input<typeof pollOptionsSchema>;

export const collectionListSchema = z
  .array(z.string())
  .superRefine((names, ctx) => {
    for (const name of names) {
      if (!isCollectionName(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown collection '${name}'; expected one of ${collectionNames.join(', ')}`,
        });
      }
    }
  })
  // Every name passed the check above: this only narrows the type to `CollectionName[]`.
  .transform((names) => names.filter(isCollectionName));
