/**
 * The event catalog: every detail-type the product emits, with its zod schema, a description and
 * an example. Composed here, above the families it collects: record changes, payment state and
 * connection health from `core/events`, each action's outcomes from the action registry (declared
 * beside each action), `Action.Failed`, and the intake's events (declared beside the intake).
 * Nothing below this module imports it; `core/events` imports no action and no intake.
 */
import { type ActionOutcomeDetailType, actionOutcomeEntries } from './actions/registry.js';
import { ACTION_FAILED, type ActionFailedType, actionFailedEntry } from './events/action-events.js';
import { type BankDetailType, bankEvents } from './events/bank-events.js';
import { createCatalog, toJsonSchemas as schemasOf } from './events/catalog.js';
import type { CatalogEntry } from './events/catalog-entry.js';
import { type ConnectionDetailType, connectionEvents } from './events/connection-events.js';
import type { RecordDetailType } from './events/envelope.js';
import { type IntakeDetailType, intakeEvents } from './events/intake-events.js';
import { type PaymentDetailType, paymentEvents } from './events/payment-events.js';
import { recordEvents } from './events/record-events.js';

/** Every detail-type an action may publish; a mistyped one does not compile. */
export type OutcomeDetailType = ActionOutcomeDetailType | ActionFailedType;

/**
 * Every detail-type the product emits, derived from the tables that state them: record events from
 * the collection table, payment events from the payable record types, action outcomes from the
 * action registry, the intake's and connection health's fixed names. Code that names a detail-type
 * takes this type, so a mistyped one does not compile.
 */
export type DetailType =
  | RecordDetailType
  | PaymentDetailType
  | OutcomeDetailType
  | IntakeDetailType
  | ConnectionDetailType
  | BankDetailType;

const catalog = createCatalog<DetailType>([
  ...recordEvents,
  ...paymentEvents,
  ...actionOutcomeEntries,
  actionFailedEntry,
  ...intakeEvents,
  ...connectionEvents,
  ...bankEvents,
]);

export const eventCatalog: readonly CatalogEntry<DetailType>[] = catalog.entries;

/** Every detail-type of the catalog, in catalog order. */
export const detailTypes: readonly DetailType[] = catalog.detailTypes;

export const isDetailType = catalog.isDetailType;

/** A detail-type given as input (a CLI flag, a replayed line, a registry entry): one of the catalog's. */
export const detailTypeSchema = catalog.detailTypeSchema;

/** The entry of a detail-type given as text (an incoming event); `undefined` when the catalog has none. */
export const findCatalogEntry = catalog.find;

/** The entry of a detail-type (every `DetailType` has one: the catalog is built from the same tables). */
export const catalogEntry = catalog.entry;

/** Parses a detail with the catalog schema of its detail-type. */
export const parseDetail = catalog.parseDetail;

/** JSON Schema (draft 2020-12) of every detail-type, keyed by detail-type. */
export function toJsonSchemas(entries: readonly CatalogEntry[] = eventCatalog): Record<string, unknown> {
  return schemasOf(entries);
}

export { ACTION_FAILED };

declare module './ports.js' {
  /** Every detail-type of the catalog, for the ports (`CatalogDetailType`). */
  interface CatalogDetailTypes extends Record<DetailType, true> {}
}
