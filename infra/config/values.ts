/**
 * Value schemas of the deployment's settings. Values from the command line and the environment
 * are strings: these coerce them (numbers, lists, JSON objects, flags) and say what was expected.
 */
import * as z from 'zod';
import { isCollectionName } from '#functions/accounting/collections.js';
import { isSecureServiceUrl } from '#functions/accounting/config.js';
import {
  DeliveryTargetError,
  deliveryTargetObjectSchema,
  deployedTargetChecks,
  parseTargetSpecs,
} from '#functions/core/delivery/delivery-targets.js';
import type { LogLevel } from '#functions/shared/logger.js';

/** `LOG_LEVEL` values the functions' logger knows; any other value would silently fall back to info. */
export const FUNCTION_LOG_LEVELS = [
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
export const serviceUrl = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
  .refine(isSecureServiceUrl, { error: 'expected https (plain http only on localhost, 127.0.0.1 or ::1)' });

export const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

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
export const jsonObject = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value; // the schema reports "expected object"
    }
  }, schema);

export const collectionList = stringList.pipe(
  z
    .array(
      z.string().refine(isCollectionName, {
        error: (issue) =>
          `unknown collection '${String(issue.input)}' (see functions/accounting/collections.ts)`,
      }),
    )
    .min(1, 'expected at least one collection'),
);

/** One of `values`, in any letter case (`-c removalPolicy=destroy`). */
export const upperCaseEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(values));

/** A boolean, or its text in any letter case (`-c intakeEnabled=false`). */
export const flag = () =>
  z
    .preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.union([z.boolean(), z.enum(['true', 'false'])]),
    )
    .transform((v) => v === true || v === 'true');

/**
 * HTTP consumers (`deliveries`): `URL[,PATTERN]` items joined by `;`, or a JSON array of such
 * strings and of objects `{ "url", "pattern"?, "connections"?, "name"? }`, each checked as
 * `run --deliver-to` checks it, and https:// required but to the loopback.
 */
export const deliveryList = z
  .preprocess(
    (value) => {
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
    },
    z.array(
      z.union([z.string(), deliveryTargetObjectSchema], {
        error: 'expected URL[,PATTERN] or { "url", "pattern"?, "connections"?, "name"? }',
      }),
    ),
  )
  .superRefine((specs, ctx) => {
    try {
      // Private hosts are checked with the whole configuration (deliveryPrivateTargets).
      parseTargetSpecs(specs, deployedTargetChecks(true));
    } catch (error) {
      if (!(error instanceof DeliveryTargetError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  });

/**
 * A functions' section (`ACTIONS_*`, `INTAKE_*`): an object of strings (numbers and booleans as
 * their text), or its JSON text, whose every key is one of `names`; `what` says which keys are refused.
 */
export const settingsRecord = (names: ReadonlySet<string>, what: string) =>
  jsonObject(
    z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
      .superRefine((settings, ctx) => {
        for (const key of Object.keys(settings)) {
          if (!names.has(key)) {
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `${what} (expected one of ${[...names].join(', ')})`,
            });
          }
        }
      }),
  );
