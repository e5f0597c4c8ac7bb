/**
 * What each Lambda handler may touch, by module name: least privilege per function. A handler
 * not listed here gets `DEFAULT_ACTION_ACCESS` (and a synth warning), so a new route still
 * deploys with the narrowest access an action usually needs.
 */
export interface HandlerAccess {
  /** Reads the credentials secret and calls the accounting service. */
  readonly accountingApi: boolean;
  /** Publishes events (outcomes, `Action.Failed`, change events) to the bus. */
  readonly publishEvents: boolean;
  /** Reads and advances poll checkpoints. */
  readonly checkpoints: boolean;
  /** Guards effects with idempotency records. */
  readonly idempotency: boolean;
  /** Keeps small per-action state (open e-invoice sendings). */
  readonly actionState: boolean;
  /** Writes ISDOC (and PDF) objects under `isdoc/` of the archive bucket. */
  readonly archiveWrite: boolean;
  /** Writes claim-check objects (payloads too large for one event). */
  readonly claimCheckWrite: boolean;
  /** Reads claim-check objects referenced by events. */
  readonly claimCheckRead: boolean;
}

const none: HandlerAccess = {
  accountingApi: false,
  publishEvents: false,
  checkpoints: false,
  idempotency: false,
  actionState: false,
  archiveWrite: false,
  claimCheckWrite: false,
  claimCheckRead: false,
};

/** The action handlers do not resolve claim checks (yet); set `claimCheckRead` when one does. */
export const DEFAULT_ACTION_ACCESS: HandlerAccess = {
  ...none,
  accountingApi: true,
  publishEvents: true,
  idempotency: true,
};

export const HANDLER_ACCESS: Readonly<Record<string, HandlerAccess>> = {
  'poll-changes': {
    ...none,
    accountingApi: true,
    publishEvents: true,
    checkpoints: true,
    claimCheckWrite: true,
  },
  'transfer-documents': DEFAULT_ACTION_ACCESS,
  'archive-isdoc': { ...DEFAULT_ACTION_ACCESS, archiveWrite: true },
  'send-invoice': { ...DEFAULT_ACTION_ACCESS, actionState: true },
  'track-einvoices': { ...none, accountingApi: true, publishEvents: true, actionState: true },
};

export function accessOf(handler: string): { access: HandlerAccess; known: boolean } {
  const access = HANDLER_ACCESS[handler];
  return access ? { access, known: true } : { access: DEFAULT_ACTION_ACCESS, known: false };
}
