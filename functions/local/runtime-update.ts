/** What the local runtime reports while it runs (its updates), and the views that show them. */
import { actionOutcomeEntries } from '../core/actions/registry.js';
import { ACTION_FAILED } from '../core/events/action-events.js';
import { intakeDetailType } from '../core/events/intake-events.js';

export interface EventUpdate {
  kind: 'event';
  detailType: string;
  id: string;
  documentNumber?: string | undefined;
  /** Extra text for action outcomes: S3 key, e-invoice status, target document. */
  note?: string | undefined;
  /** When the record changed at the service (`modifiedDate`), for change-to-event latency. */
  modifiedDate?: string | undefined;
  /** The connection that published it (`detail.connection`). */
  connection?: string | undefined;
  at: Date;
}

/** What the live view shows of a connection: healthy and polled, failing as a whole, paused, gone. */
export type ConnectionState = 'healthy' | 'unhealthy' | 'paused' | 'removed';

export interface ConnectionUpdate {
  kind: 'connection';
  connection: string;
  state: ConnectionState;
  /** Why it is unhealthy (`Connection.Unhealthy`'s reason). */
  reason?: string;
  /** What a person should know and do, in one line (refused credentials: the setting to check). */
  message?: string;
}

export type RuntimeUpdate =
  | {
      kind: 'started';
      service: string;
      sandbox: boolean;
      dataDir: string;
      collections: readonly string[];
      intervalMs: number;
      actions: readonly string[];
      /** The connections polled (one for a plain run). */
      connections?: readonly string[];
      s3Endpoint?: string;
      /** The e-shop order intake: base URL, the sources with a secret, and whether paths name the connection. */
      intake?: IntakeStart;
    }
  | EventUpdate
  | {
      kind: 'poll';
      at: Date;
      durationMs: number;
      events: number;
      requests?: number;
      /** The connection polled, and its largest watermark lag after the poll. */
      connection?: string;
      lagMs?: number;
    }
  | ConnectionUpdate
  /**
   * The first backfill: records published of those counted at the start; `done` when a poll ended
   * with nothing left, `interrupted` when the run stopped before that.
   */
  | { kind: 'backfill'; done: number; total: number; state?: 'done' | 'interrupted' }
  /** The console in the browser (`run`): the URL to open, with the run's token. */
  | { kind: 'console'; url: string }
  | { kind: 'action'; route: string; ok: boolean; detailType: string; id: string; message?: string }
  | { kind: 'warning'; message: string; data?: Record<string, unknown> }
  | { kind: 'stopping'; reason: string }
  | { kind: 'stopped'; published: number };

export interface View {
  update(update: RuntimeUpdate): void;
  /** Stops redrawing and leaves the last frame (or a summary line) on screen. */
  close(): void;
}

/** Short text describing an action outcome event, for both renderers. */
export function outcomeNote(detailType: string, detail: Record<string, unknown>): string | undefined {
  if (detailType.endsWith('.Transferred')) {
    const target = detail.target as { recordType?: string; documentNumber?: string | null } | undefined;
    return target ? `→ ${target.recordType ?? ''} ${target.documentNumber ?? ''}`.trim() : undefined;
  }
  if (detailType.endsWith('.IsdocArchived')) {
    const archive = detail.archive as { key?: string } | undefined;
    return archive?.key ? `s3 ${archive.key}` : undefined;
  }
  if (detailType.endsWith('.EInvoiceStatusChanged')) {
    const mls = detail.mls as
      | { code: string; reasons: { code: string; ruleIds: string[] }[] }
      | null
      | undefined;
    const why = mls?.reasons.map((r) => [r.code, ...r.ruleIds].join(' ')).join('; ');
    const mlsCode = mls ? `MLS ${mls.code}${why ? `: ${why}` : ''}` : undefined;
    const given = mlsCode ?? (detail.responseCode ? String(detail.responseCode) : undefined);
    const code = given ? ` (${given})` : '';
    return `e-invoice ${String(detail.status ?? '?')}${code}${detail.final ? ' final' : ''}`;
  }
  const intakeNote = eshopOrderNote(detailType, detail);
  if (intakeNote) return intakeNote;
  const payment = paymentNote(detailType, detail);
  if (payment) return payment;
  if (detailType === ACTION_FAILED) {
    const problem = detail.problem as { kind?: string; message?: string } | undefined;
    return problem ? `${problem.kind ?? 'failed'}: ${problem.message ?? ''}` : undefined;
  }
  return undefined;
}

/** Payment events: what the new payments paid, or how long overdue; and the rest to pay. */
function paymentNote(detailType: string, detail: Record<string, unknown>): string | undefined {
  const change = /^Issued(?:Advance)?Invoice\.(Paid|PartiallyPaid|Overdue)$/.exec(detailType)?.[1];
  if (!change) return undefined;
  const amount = (v: unknown) => (typeof v === 'number' ? v.toFixed(2) : '?');
  // Short: it ends the live view's 80-column event line.
  if (change === 'Overdue')
    return `${String(detail.daysOverdue ?? '?')}d late, ${amount(detail.restToPay)} due`;
  return `+${amount(detail.amountPaid)}, rest ${amount(detail.restToPay)}`;
}

/** `EshopOrder.*`: the shop's order and, once imported, the received order it became. */
function eshopOrderNote(detailType: string, detail: Record<string, unknown>): string | undefined {
  if (!detailType.startsWith('EshopOrder.')) return undefined;
  const shop = `${String(detail.source ?? '?')} ${String(detail.orderNumber ?? detail.shopOrderId ?? '')}`;
  if (detailType === intakeDetailType('Imported')) {
    return `${shop} → ReceivedOrder ${String(detail.documentNumber ?? detail.receivedOrderId ?? '')}`;
  }
  if (detailType === intakeDetailType('Rejected')) {
    const reasons = Array.isArray(detail.reasons) ? detail.reasons.map(String) : [];
    return `${shop} rejected (${String(detail.stage ?? '?')}): ${reasons[0] ?? ''}`;
  }
  return `${shop} received`;
}

/** What the start says of the intake; `named`: many connections, each path names one. */
export interface IntakeStart {
  url: string;
  sources: readonly string[];
  named?: boolean;
}

/**
 * `intake POST <url>/intake/<source> (shopify, …)` (with many connections
 * `<url>/intake/<connection>/<source>`), or nothing without an intake.
 */
export function intakeText(intake: IntakeStart | undefined): string {
  if (!intake) return '';
  const sources = intake.sources.length > 0 ? intake.sources.join(', ') : 'none: set INTAKE_*_SECRET';
  return `intake POST ${intake.url}/intake/${intake.named ? '<connection>/' : ''}<source> (${sources})`;
}

/** What the actions and the intake's importer publish about what they did, from the catalog. */
const outcomeTypes = new Set<string>([
  ...actionOutcomeEntries.map((e) => e.detailType),
  ACTION_FAILED,
  intakeDetailType('Imported'),
  intakeDetailType('Rejected'),
]);

/** Detail-types the actions publish about what they did (outcomes), as against record events. */
export function isOutcomeType(detailType: string): boolean {
  return outcomeTypes.has(detailType);
}
