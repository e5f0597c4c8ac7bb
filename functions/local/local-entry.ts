/**
 * A connection of the local runtime as the core's registry entry of one: what `pollConnection`
 * reads of it is its name, variant, collections and source; its credentials are the plan's own
 * (opened by the runtime), so the entry names the deployment's.
 */
import type { CollectionName, ServiceVariant } from '../accounting/collections.js';
import {
  CONNECTION_DEFAULTS,
  type ConnectionEntry,
  DEPLOYMENT_CREDENTIALS,
  type RateLimit,
} from '../core/connections/connection-entry.js';

export interface LocalEntryInput {
  name: string;
  variant: ServiceVariant;
  collections: readonly CollectionName[];
  /** The configured event source; `accounting.<name>` when absent. */
  source?: string | undefined;
  intervalMs?: number;
  paused?: boolean;
  rateLimit?: RateLimit | undefined;
}

export function localEntry(input: LocalEntryInput): ConnectionEntry {
  return {
    name: input.name,
    variant: input.variant,
    credentialsSecret: DEPLOYMENT_CREDENTIALS,
    collections: [...input.collections],
    actions: {},
    pollIntervalSeconds:
      input.intervalMs === undefined
        ? CONNECTION_DEFAULTS.pollIntervalSeconds
        : Math.max(1, Math.round(input.intervalMs / 1000)),
    paused: input.paused ?? false,
    rateLimit: input.rateLimit ?? CONNECTION_DEFAULTS.rateLimit,
    ...(input.source ? { source: input.source } : {}),
  };
}
