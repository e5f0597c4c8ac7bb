/** The shapes of the console's request bodies (zod) and of an archive listing's rows. */
import * as z from 'zod';
import type { ObjectInfo } from '../../core/ports.js';

export const replayBodySchema = z
  .object({
    id: z.string().min(1, { error: 'expected an event id' }).optional(),
    filter: z.record(z.string(), z.string(), { error: 'expected the filter as strings' }).optional(),
  })
  .strict()
  .refine((b) => (b.id === undefined) !== (b.filter === undefined), {
    path: ['id'],
    error: 'expected either id (one event) or filter (the matching events)',
  });

export const redriveBodySchema = z
  .object({ key: z.string().min(1, { error: 'expected a dead letter key' }).optional() })
  .strict();

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
