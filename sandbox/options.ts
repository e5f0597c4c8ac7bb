/**
 * Options of a sandbox run and its fault knobs, validated with zod. Every knob has a default,
 * so `startSandbox()` with no arguments serves a small, well-behaved demo company.
 */
import * as z from 'zod';
import { serviceVariants } from '../functions/accounting/collections.js';

/** Fixed demo credentials (documented in docs/sandbox.md). They grant access to this sandbox only. */
export const DEMO_CREDENTIALS = {
  apiKey: 'sandbox-api-key',
  readOnlyApiKey: 'sandbox-readonly-api-key',
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret',
  readOnlyClientId: 'sandbox-readonly-client',
  readOnlyClientSecret: 'sandbox-readonly-secret',
  scope: 'Service.OpenApi.Access.Sk',
} as const;

const probability = z.number().min(0).max(1);
const nonNegative = z.number().min(0);

export const faultsSchema = z
  .object({
    /** Added delay before answering: `baseMs` plus a random part up to `jitterMs` (uniform or exponential). */
    latency: z
      .object({
        baseMs: nonNegative.default(0),
        jitterMs: nonNegative.default(0),
        distribution: z.enum(['uniform', 'exponential']).default('uniform'),
      })
      .nullable()
      .default(null),
    /** Token bucket per credential; an empty bucket answers 429 with `Retry-After`. */
    rateLimit: z
      .object({ capacity: z.number().int().positive(), refillPerSecond: z.number().positive() })
      .nullable()
      .default(null),
    /** Probability of a random 429 (with `Retry-After: retryAfterSeconds`). */
    random429Rate: probability.default(0),
    retryAfterSeconds: z.number().int().min(0).default(1),
    /** Probability of a random 5xx, the status picked from `statuses5xx`. */
    random5xxRate: probability.default(0),
    statuses5xx: z.array(z.number().int().min(500).max(599)).min(1).default([500, 502, 503, 504]),
    /** Probability that the connection is destroyed without an answer. */
    connectionResetRate: probability.default(0),
    /** Probability that a body is sent in `slowBodyChunks` pieces, `slowBodyChunkDelayMs` apart. */
    slowBodyRate: probability.default(0),
    slowBodyChunks: z.number().int().min(2).default(4),
    slowBodyChunkDelayMs: nonNegative.default(50),
    /** Probability that a successful JSON body is cut short (invalid JSON, status unchanged). */
    malformedJsonRate: probability.default(0),
    /** Offset (ms) added to every ModifiedDate the server stamps (its clock runs ahead or behind). */
    clockSkewMs: z.number().default(0),
    /** A change becomes visible this many ms after its ModifiedDate (commit delay). */
    lateVisibilityMs: nonNegative.default(0),
    /** After a list page is served, with probability `rate` edit `count` random records of that collection. */
    editsWhilePaging: z
      .object({ rate: probability.default(1), count: z.number().int().min(1).default(1) })
      .nullable()
      .default(null),
    /** Only requests whose path matches this regular expression get the random faults (default: all of /v1). */
    pathPattern: z.string().default('^/v1/'),
  })
  .strict();

export type Faults = z.output<typeof faultsSchema>;
export type FaultsInput = z.input<typeof faultsSchema>;

export const sizesSchema = z
  .object({
    /** Documents in total, spread over the variant's document types by weight. */
    documents: z.number().int().min(0).max(2_000_000).default(300),
    /** Business partners (address book). */
    partners: z.number().int().min(1).max(200_000).default(40),
    /** Exact counts for some document collections (override the spread). */
    perCollection: z.record(z.string(), z.number().int().min(0)).default({}),
  })
  .strict();

export const eInvoicingSchema = z
  .object({
    /** Time between two steps of a sending's status. */
    stepMs: nonNegative.default(2000),
    transportFailureProbability: probability.default(0.05),
    /** Weights of the buyer's final invoice response after AB → IP. */
    responseWeights: z
      .object({
        AP: nonNegative.default(0.7),
        RE: nonNegative.default(0.1),
        CA: nonNegative.default(0.1),
        UQ: nonNegative.default(0.1),
      })
      .default({ AP: 0.7, RE: 0.1, CA: 0.1, UQ: 0.1 }),
    /** Probability that an accepted (AP) invoice later reports PD (paid). */
    paidProbability: probability.default(0.3),
    /**
     * What the network answers: Message Level Status (`mls`, the Slovak leg, default of `sk`) or the
     * buyer's Invoice Response (`invoiceResponse`, as networks outside Slovakia do).
     */
    statuses: z.enum(['mls', 'invoiceResponse']).optional(),
  })
  .strict();

export const activitySchema = z
  .object({
    enabled: z.boolean().default(false),
    /** Actions per second while enabled. */
    ratePerSecond: z.number().positive().max(1000).default(1),
    /** Weights of the actions the generator takes. */
    weights: z
      .object({
        createOrder: nonNegative.default(0.5),
        editDocument: nonNegative.default(0.3),
        issueInvoice: nonNegative.default(0.2),
        /** Payments of unpaid issued (advance) invoices: full, partial, over and under the rest. */
        payInvoice: nonNegative.default(0),
        /** Payment terms extended: an unpaid invoice's due date moved on by 7-30 days (may stay past). */
        moveDueDate: nonNegative.default(0),
      })
      .default({ createOrder: 0.5, editDocument: 0.3, issueInvoice: 0.2, payInvoice: 0, moveDueDate: 0 }),
  })
  .strict();

export interface SandboxClock {
  now(): Date;
}

export const systemClock: SandboxClock = { now: () => new Date() };

export const optionsSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(0),
    host: z.string().default('127.0.0.1'),
    seed: z.number().int().default(1),
    /** Companies served, each with its own data (seed + index − 1) and credentials (`company.ts`). */
    companies: z.number().int().min(1).max(100_000).default(1),
    /** National variant: `sk` serves the Slovak contract, `cz` exactly the public OpenAPI of the Czech service. */
    variant: z.enum(serviceVariants).default('sk'),
    sizes: sizesSchema.default({ documents: 300, partners: 40, perCollection: {} }),
    /** The server silently caps `PageSize` to this. */
    maxPageSize: z.number().int().positive().default(100),
    timestampPrecision: z.enum(['ms', 's']).default('ms'),
    /** ISDOC answers 204 until this long after the invoice was created. */
    isdocReadyDelayMs: nonNegative.default(0),
    tokenLifetimeSeconds: z.number().int().positive().default(3600),
    /** Seeded documents are dated in the year before this instant (keeps seeds deterministic). */
    seedAnchor: z.iso.datetime({ offset: true }).default('2026-01-01T00:00:00.000Z'),
    eInvoicing: eInvoicingSchema.default({
      stepMs: 2000,
      transportFailureProbability: 0.05,
      responseWeights: { AP: 0.7, RE: 0.1, CA: 0.1, UQ: 0.1 },
      paidProbability: 0.3,
    }),
    activity: activitySchema.default({
      enabled: false,
      ratePerSecond: 1,
      weights: { createOrder: 0.5, editDocument: 0.3, issueInvoice: 0.2, payInvoice: 0, moveDueDate: 0 },
    }),
    faults: faultsSchema.default(faultsSchema.parse({})),
    /**
     * Collections the credentials lack the right to, as on a plan without that module: every
     * operation under `/<Collection>` answers 403 ("credentials lack the right to the operation").
     */
    forbiddenCollections: z.array(z.string().min(1)).default([]),
    /** Operation id → path template, as `ACCOUNTING_PATH_OVERRIDES` gives the client (serve the same paths). */
    pathOverrides: z.record(z.string(), z.string().startsWith('/')).default({}),
  })
  .strict();

export type SandboxOptionsInput = z.input<typeof optionsSchema>;
export type ResolvedSandboxOptions = z.output<typeof optionsSchema>;

/** What `startSandbox` accepts: the validated options plus an injectable clock. */
export interface SandboxOptions extends Omit<SandboxOptionsInput, 'faults'> {
  faults?: FaultsInput;
  /** Time source for all logic (timestamps, token expiry, ISDOC readiness, e-invoice steps). Real time by default. */
  clock?: SandboxClock;
  /** Quiet by default; pass a function to see one line per request. */
  log?: (line: string) => void;
}

export function parseFaults(input: unknown): Faults {
  return faultsSchema.parse(input ?? {});
}

/** Describes zod issues as `field: message` lines for errors that name the field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
