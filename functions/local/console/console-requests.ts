/** The shapes of the console's request bodies (zod) and of an archive listing's rows. */
import * as z from 'zod';
import type { ObjectInfo } from '#functions/core/ports.js';

const CRITERIA = ['type', 'connection', 'doc', 'since', 'until'] as const;
const criterion = z.string({ error: 'expected a string' }).optional();

/**
 * A replay's filter: only the known criteria (an unknown key is refused, not dropped), at least one
 * of them, or an explicit `all: true` for the latest events of every kind.
 */
export const replayFilterSchema = z
  .strictObject({
    type: criterion,
    connection: criterion,
    doc: criterion,
    since: criterion,
    until: criterion,
    limit: z.union([z.string(), z.number()], { error: 'expected a number 1-2000' }).optional(),
    all: z.literal(true, { error: 'expected true (replay without a criterion)' }).optional(),
  })
  .refine((f) => f.all === true || CRITERIA.some((k) => (f[k] ?? '').trim() !== ''), {
    error: `expected at least one of ${CRITERIA.join(', ')}, or all: true`,
  });

export const replayBodySchema = z
  .object({
    id: z.string().min(1, { error: 'expected an event id' }).optional(),
    filter: replayFilterSchema.optional(),
  })
  .strict()
  .refine((b) => (b.id === undefined) !== (b.filter === undefined), {
    path: ['id'],
    error: 'expected either id (one event) or filter (the matching events)',
  });

/** A person releases a held invoice: which one, and who they are (recorded in the event). */
export const releaseBodySchema = z.strictObject({
  connection: z.string({ error: 'expected the connection' }).min(1, { error: 'expected the connection' }),
  id: z.string({ error: 'expected the invoice id' }).min(1, { error: 'expected the invoice id' }),
  by: z
    .string({ error: 'expected who releases it' })
    .trim()
    .min(1, { error: 'expected who releases it' })
    .max(128),
});

export const redriveBodySchema = z
  .object({ key: z.string().min(1, { error: 'expected a dead letter key' }).optional() })
  .strict();

const KEY_SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * Whether `key` has the archive's own shape, `isdoc/<connection>/<type>/<yyyy>/<mm>/<file>.isdoc`,
 * each segment letters, digits, `.`, `_`, `-` and none `.`, `..` or empty: nothing that could name
 * an object outside `isdoc/`.
 */
export function isArchiveKey(key: string): boolean {
  const parts = key.split('/');
  const [root, , , year = '', month = '', file = ''] = parts;
  return (
    parts.length === 6 &&
    root === 'isdoc' &&
    parts.every((p) => KEY_SEGMENT.test(p) && p !== '.' && p !== '..') &&
    /^\d{4}$/.test(year) &&
    /^\d{2}$/.test(month) &&
    file.endsWith('.isdoc')
  );
}

/** `isdoc/<connection>/<type>/<yyyy>/<mm>/<file>` → its parts, for browsing by connection, kind, month. */
export function archiveEntry(info: ObjectInfo) {
  const [, connection = '', kind = '', year = '', month = '', ...rest] = info.key.split('/');
  return {
    key: info.key,
    connection,
    kind,
    month: `${year}-${month}`,
    file: rest.join('/'),
    size: info.size,
    lastModified: info.lastModified?.toISOString(),
  };
}
