/**
 * What each Lambda handler may touch, by module name: least privilege per function. An action's
 * access follows its registry entry (functions/core/actions/registry.ts): the service and the bus,
 * plus the stores it `uses`. A handler that is neither the poller nor an action gets
 * `DEFAULT_ACTION_ACCESS` (and a synth warning), so a new route still deploys with the narrowest
 * access an action usually needs.
 */
import type { ActionDefinition } from '#functions/core/actions/action-definition.js';
import { findAction } from '#functions/core/actions/registry.js';

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
  /**
   * Writes ISDOC (and PDF) objects under `isdoc/` of the archive bucket (read and list there too),
   * and documents the schema refused in strict mode under `rejected/isdoc/` (write only).
   */
  readonly archiveWrite: boolean;
  /**
   * Writes the records of finished e-invoice sendings beside the archived ISDOCs: `s3:PutObject`
   * on the keys `isdoc/*.einvoice.json` of the archive bucket, nothing else there (write only).
   */
  readonly sendingRecordWrite: boolean;
  /** Writes the daily reports: `s3:PutObject` under `reports/einvoicing/` of the archive bucket only. */
  readonly reportWrite: boolean;
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
  sendingRecordWrite: false,
  reportWrite: false,
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

/** The poller's handler module. */
export const POLLER_HANDLER = 'poll-connections';

const POLLER_ACCESS: HandlerAccess = {
  ...none,
  accountingApi: true,
  publishEvents: true,
  checkpoints: true,
  claimCheckWrite: true,
};

/** An action calls the service and publishes its outcomes; each store it uses is granted. */
export function accessOfAction(action: Pick<ActionDefinition, 'uses'>): HandlerAccess {
  return {
    ...none,
    accountingApi: true,
    publishEvents: true,
    idempotency: action.uses.includes('idempotency'),
    actionState: action.uses.includes('actionState'),
    archiveWrite: action.uses.includes('archive'),
    sendingRecordWrite: action.uses.includes('sendingRecords'),
    reportWrite: action.uses.includes('reports'),
  };
}

export function accessOf(handler: string): { access: HandlerAccess; known: boolean } {
  if (handler === POLLER_HANDLER) return { access: POLLER_ACCESS, known: true };
  const action = findAction(handler);
  return action
    ? { access: accessOfAction(action), known: true }
    : { access: DEFAULT_ACTION_ACCESS, known: false };
}
