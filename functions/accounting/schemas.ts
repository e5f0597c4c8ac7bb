/**
 * zod schemas for what the client relies on in the service's responses. Only the fields the product
 * uses are checked (`Id`, `ModificationInfo`, `Status`, `DocumentNumber`, envelopes); every other
 * field passes through untouched (`z.looseObject`, or a listed page's items kept as sent), so
 * nothing the service adds is lost.
 */
import * as z from 'zod';
import type { CollectionSpec } from './collections.js';
import type { ProblemDetails } from './errors.js';

const nonEmpty = z.string().min(1);

/** General reference lists of the real service carry `ModifiedDate` only (no `CreatedDate`). */
export const modificationInfoSchema = z.looseObject({
  CreatedDate: nonEmpty.nullish(),
  CreatedBy: z.string().nullish(),
  ModifiedDate: nonEmpty,
  ModifiedBy: z.string().nullish(),
});

/** Any record: `Id` is required. */
export const recordSchema = z.looseObject({ Id: nonEmpty });

/** Documents and the address book: `ModificationInfo` is required (the poller relies on it). */
export const trackedRecordSchema = z.looseObject({
  Id: nonEmpty,
  ModificationInfo: modificationInfoSchema,
  DocumentNumber: z.string().nullish(),
  Status: z.string().nullish(),
});

export function recordSchemaFor(collection: CollectionSpec | undefined) {
  return collection?.modificationInfo ? trackedRecordSchema : recordSchema;
}

const recordFieldsSchema = z.object(recordSchema.shape);
const trackedRecordFieldsSchema = z.object(trackedRecordSchema.shape);

/**
 * The checks of `recordSchemaFor` without copying every field of the record: a listed page's items
 * are checked with it and then kept as the service sent them (pages hold thousands of records).
 */
export function recordFieldsSchemaFor(collection: CollectionSpec | undefined) {
  return collection?.modificationInfo ? trackedRecordFieldsSchema : recordFieldsSchema;
}

/** Keyset mode leaves `PageNumber` unset: null, absent or an empty string are all accepted. */
export const paginationSchema = z.looseObject({
  PageNumber: z.preprocess((v) => (v === '' ? null : v), z.number().int().nullish()),
  PageSize: z.number().int().nullish(),
  After: z.string().nullish(),
});

/** `EntityListQueryResultDtoOf<X>`. */
export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    Items: z.array(item),
    TotalItemCount: z.number().int().nullish(),
    Pagination: paginationSchema.nullish(),
  });
}

export const warningSchema = z.looseObject({ Code: z.string(), Message: z.string().nullish() });

/** `EntityCreatedResponseDtoOf<X>` with `X`'s schema: `Data` may be null; warnings are not errors. */
export function createdEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.looseObject({
    Data: data.nullish(),
    Warnings: z.array(warningSchema).nullish(),
  });
}

/** OAuth token response of `{authUrl}/connect/token`. */
export const tokenResponseSchema = z.looseObject({
  access_token: nonEmpty,
  expires_in: z.coerce.number().int().positive(),
  token_type: z.string().nullish(),
  scope: z.string().nullish(),
});

/** OAuth error response. */
export const oauthErrorSchema = z.looseObject({
  error: z.string(),
  error_description: z.string().nullish(),
});

const str = z.string().nullish().catch(undefined);
const errorsMap = z
  .record(z.string(), z.union([z.array(z.unknown()), z.unknown()]))
  .nullish()
  .catch(undefined);

/** Problem details in either casing (`title`/`Title`…); nothing here is required. */
export const problemDetailsSchema = z.looseObject({
  type: str,
  Type: str,
  title: str,
  Title: str,
  status: z.coerce.number().int().nullish().catch(undefined),
  Status: z.coerce.number().int().nullish().catch(undefined),
  detail: str,
  Detail: str,
  instance: str,
  Instance: str,
  traceId: str,
  TraceId: str,
  /** ASP.NET's ProblemDetails as the OpenAPI describes it: `traceId` inside `Extensions`. */
  Extensions: z.looseObject({ traceId: str, TraceId: str }).nullish().catch(undefined),
  extensions: z.looseObject({ traceId: str, TraceId: str }).nullish().catch(undefined),
  errors: errorsMap,
  Errors: errorsMap,
});

/** Normalises a parsed problem-details body; returns `{}` for anything that is not one. */
export function toProblemDetails(body: unknown): ProblemDetails {
  const parsed = problemDetailsSchema.safeParse(body);
  if (!parsed.success || typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const p = parsed.data;
  const rawErrors = p.errors ?? p.Errors;
  let errors: Record<string, string[]> | undefined;
  if (rawErrors) {
    errors = {};
    for (const [k, v] of Object.entries(rawErrors)) {
      errors[k] = (Array.isArray(v) ? v : [v]).map((m) => (typeof m === 'string' ? m : JSON.stringify(m)));
    }
  }
  const out: ProblemDetails = {};
  const set = <K extends keyof ProblemDetails>(k: K, v: ProblemDetails[K] | null | undefined) => {
    if (v !== undefined && v !== null) out[k] = v;
  };
  set('type', p.type ?? p.Type);
  set('title', p.title ?? p.Title);
  set('status', p.status ?? p.Status);
  set('detail', p.detail ?? p.Detail);
  set('instance', p.instance ?? p.Instance);
  const ext = p.Extensions ?? p.extensions;
  set('traceId', p.traceId ?? p.TraceId ?? ext?.traceId ?? ext?.TraceId);
  set('errors', errors);
  return out;
}

/** `Items[3].ModificationInfo.ModifiedDate` from a zod issue path. */
export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(body)';
}

/** A short "what was expected" from a zod issue, without the received value. */
export function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_small':
      return 'expected a non-empty value';
    default:
      return `is invalid (${issue.code})`;
  }
}
