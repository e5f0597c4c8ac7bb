/**
 * Outcome of the daily readiness report, declared beside it: `EInvoicing.ReadinessReported`, once
 * per connection and day, with the report's counts and where the full report was written. Envelope
 * style of the other events, with `recordType: 'EInvoicing'` and the report's day as id.
 */
import * as z from 'zod';
import { connectionSchema } from '#functions/core/connection.js';
import {
  actionIdempotencyKey,
  EXAMPLE_AT,
  EXAMPLE_CONNECTION,
  hex64,
} from '#functions/core/events/action-events.js';
import { type CatalogEntry, ENVELOPE_VERSION } from '#functions/core/events/catalog-entry.js';

/** Detail-type of one daily readiness report. */
export const READINESS_REPORTED = 'EInvoicing.ReadinessReported';

const isoDateTime = z.iso.datetime({ offset: true, local: true });
const count = z.number().int().nonnegative();

export const readinessReportedSchema = z
  .object({
    version: z.literal(ENVELOPE_VERSION).describe('Envelope version; bumped on a breaking change.'),
    connection: connectionSchema.describe('The connection (company) the report is about.'),
    recordType: z.literal('EInvoicing'),
    id: z.iso.date().describe('The day of the report (UTC), as in its key.'),
    change: z.literal('ReadinessReported'),
    idempotencyKey: hex64.describe('Equal for every delivery of this day’s report of this connection.'),
    occurredAt: isoDateTime.describe('When the report was made.'),
    policy: z.string().min(1).describe('The e-invoicing policy the report applied (`mandate-sk`, `lists`).'),
    period: z
      .object({ from: isoDateTime, to: isoDateTime })
      .describe('The issue dates of the invoices read: from the first day, to the report.'),
    reportKey: z
      .string()
      .min(1)
      .describe(
        'Key of the full report in the archive bucket: `reports/einvoicing/<connection>/<day>.json`.',
      ),
    counts: z
      .object({
        invoices: count.describe('Issued invoices of the period.'),
        einvoice: count.describe('Of them, those the policy would e-invoice.'),
        ready: count.describe('Of those, the ones the pre-flight lets go.'),
        blocked: count.describe('Of those, the ones the pre-flight would block.'),
        email: count.describe(
          'Those that would go by e-mail (partners without a DIČ, with the e-mail fallback).',
        ),
        none: count.describe('Those no channel would take.'),
      })
      .describe('The counts of the report.'),
    rules: z
      .array(z.object({ rule: z.string().min(1), invoices: count }))
      .describe('Per rule the pre-flight would block on, the invoices breaking it, most first.'),
    partnersToFix: count.describe('Partners with at least one blocked invoice.'),
    partnersWithoutDic: count.describe('Partners without a DIČ (they would fall to e-mail or to nothing).'),
  })
  .describe('The daily e-invoicing readiness report of a connection was written.');
export type ReadinessReportedDetail = z.infer<typeof readinessReportedSchema>;

/** The idempotency key of a connection's report of one day. */
export function readinessReportKey(connection: string, day: string): string {
  return actionIdempotencyKey(connection, 'einvoicing-readiness', day);
}

export const readinessReportedEntry: CatalogEntry<typeof READINESS_REPORTED, typeof readinessReportedSchema> =
  {
    detailType: READINESS_REPORTED,
    description:
      'The daily e-invoicing readiness report of a connection was written to the archive bucket (its counts; the full report under reportKey).',
    schema: readinessReportedSchema,
    example: {
      version: ENVELOPE_VERSION,
      connection: EXAMPLE_CONNECTION,
      recordType: 'EInvoicing',
      id: '2026-03-04',
      change: 'ReadinessReported',
      idempotencyKey: readinessReportKey(EXAMPLE_CONNECTION, '2026-03-04'),
      occurredAt: EXAMPLE_AT,
      policy: 'mandate-sk',
      period: { from: '2025-12-05T00:00:00.000Z', to: EXAMPLE_AT },
      reportKey: `reports/einvoicing/${EXAMPLE_CONNECTION}/2026-03-04.json`,
      counts: { invoices: 412, einvoice: 371, ready: 359, blocked: 12, email: 0, none: 41 },
      rules: [
        { rule: 'PEPPOL-EN16931-R010', invoices: 7 },
        { rule: 'SK-BUYER-ADDRESS', invoices: 4 },
        { rule: 'PEPPOL-EN16931-R120', invoices: 1 },
      ],
      partnersToFix: 5,
      partnersWithoutDic: 23,
    },
  };
