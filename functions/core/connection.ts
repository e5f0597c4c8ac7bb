/**
 * The connection (company) whose events these are: it names them in event envelopes, the event
 * `source` (`accounting.<connection>`), checkpoint keys, archive keys and the e-invoice tracker's
 * open-sendings list. The poller and the actions read it from one variable, `ACCOUNTING_CONNECTION`.
 */
import * as z from 'zod';

export const DEFAULT_CONNECTION = 'default';

export const connectionSchema = z
  .string({ error: 'expected a name: letters, digits, `_`, `.` or `-`' })
  .regex(/^[A-Za-z0-9_.-]+$/, 'expected letters, digits, `_`, `.` or `-`');

/** Every connection's events have a `source` starting with this (`accounting.<connection>`). */
export const CONNECTION_SOURCE_PREFIX = 'accounting.';

/** The `source` of a connection's events: `accounting.<connection>`. */
export function connectionEventSource(connection: string): string {
  return `${CONNECTION_SOURCE_PREFIX}${connection}`;
}
