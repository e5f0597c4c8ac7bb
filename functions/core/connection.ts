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
