/**
 * The daily e-invoicing readiness report of a connection: the report `einvoice readiness` prints
 * (`connection-readiness.ts`, the same reading and checks), for the invoices issued in the last
 * `READINESS_PERIOD_DAYS` days, written as JSON to `reports/einvoicing/<connection>/<day>.json` of
 * the archive bucket, then announced by `EInvoicing.ReadinessReported` with its counts. A run
 * repeated on the same day writes that day's key again (the bucket keeps each version) and
 * announces it with the same idempotency key. It reads the service and sends nothing.
 */
import { createHash } from 'node:crypto';
import type { AccountingApi } from '#functions/accounting/api.js';
import type { ReadinessReport } from '#functions/core/einvoicing/readiness.js';
import type { Clock, EventPublisher, Logger, ObjectStore } from '#functions/core/ports.js';
import type { ActionsConfig } from '../config.js';
import { publishOutcome } from '../outcomes.js';
import { connectionReadiness, readinessPeriod } from './connection-readiness.js';
import { readinessReportedEntry, readinessReportKey } from './events.js';

/** Key prefix of the readiness reports in the archive bucket. */
export const READINESS_REPORT_PREFIX = 'reports/einvoicing/';

export interface ReportReadinessDeps {
  api: AccountingApi;
  /** The archive bucket; the report's function may only put keys under `reports/einvoicing/`. */
  reports: ObjectStore;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  config: Pick<ActionsConfig, 'sending' | 'variant' | 'connection' | 'eventSource'>;
}

/** A key segment: letters, digits, `-`, `_`, `.`; anything else becomes `-`. */
const segment = (value: string) => value.replace(/[^A-Za-z0-9._-]/g, '-');

/** `reports/einvoicing/<connection>/<day>.json`. */
export function readinessReportObjectKey(connection: string, day: string): string {
  return `${READINESS_REPORT_PREFIX}${segment(connection)}/${day}.json`;
}

export async function reportReadiness(
  deps: ReportReadinessDeps,
): Promise<{ key: string; counts: ReadinessReport['counts'] }> {
  const { config } = deps;
  const now = deps.clock.now();
  const day = now.toISOString().slice(0, 10);
  const report = await connectionReadiness(deps.api, config, readinessPeriod(now), config.connection);
  const key = readinessReportObjectKey(config.connection, day);
  const body = Buffer.from(`${JSON.stringify(report, null, 2)}\n`);
  await deps.reports.put({
    key,
    body,
    contentType: 'application/json',
    contentLength: body.length,
    checksumSha256: createHash('sha256').update(body).digest('base64'),
  });
  await publishOutcome(
    deps.publisher,
    config.eventSource,
    readinessReportedEntry,
    {
      version: 1,
      connection: config.connection,
      recordType: 'EInvoicing',
      id: day,
      change: 'ReadinessReported',
      idempotencyKey: readinessReportKey(config.connection, day),
      occurredAt: now.toISOString(),
      policy: report.policy,
      period: report.period,
      reportKey: key,
      counts: report.counts,
      rules: report.rules,
      partnersToFix: report.partnersToFix.length,
      partnersWithoutDic: report.partnersWithoutDic.length,
    },
    now,
  );
  deps.logger.info('einvoicing readiness reported', { connection: config.connection, key, ...report.counts });
  return { key, counts: report.counts };
}
