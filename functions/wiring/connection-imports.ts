/**
 * The order import through the connection registry, for one connection and for many: each queued
 * order is imported into the connection its message names, with that connection's client. With
 * the DynamoDB registry, its own secret and every request drawn from its token bucket, the one its
 * poller and actions draw from; a single-company deployment is a registry of one, whose client
 * the same builder makes from the deployment's credentials. An order of a connection that is not
 * registered or is paused is not imported: it is retried, and after the queue's receives it waits
 * in the intake DLQ (alarmed) to be redriven.
 */
import type { AccountingApi } from '../accounting/api.js';
import { RetryLaterError } from '../core/actions/errors.js';
import type { EntryResult, RunOptions } from '../core/actions/run-action.js';
import { connectionEventSource } from '../core/connection.js';
import type { RateLimit } from '../core/connections/connection-entry.js';
import type { ConnectionRegistry } from '../core/connections/registry.js';
import { type ImportDeps, importOrder } from '../core/intake/import-order.js';
import { OrderClaimCheckError, withClaimedOrder } from '../core/intake/order-claim-check.js';
import { createReferenceCache, type ReferenceCache } from '../core/intake/references.js';
import { intakeMessageSchema } from '../core/intake/shop-order.js';
import type { Clock, Logger, ObjectStore } from '../core/ports.js';
import { type ConnectionClients, DEFAULT_MAX_CLIENTS } from './connection-clients.js';

/** The import's dependencies for the connection a message names. */
export interface ConnectionImports {
  logger: Logger;
  depsFor(connection: string): Promise<ImportDeps>;
}

export function connectionImports(
  shared: Omit<ImportDeps, 'api' | 'references'>,
  deps: {
    registry: Pick<ConnectionRegistry, 'get'>;
    clients: Pick<ConnectionClients, 'apiFor'>;
    limiter?: { setLimit(connection: string, limit: RateLimit): void };
    clock: Clock;
    referenceCacheSeconds: number;
  },
): ConnectionImports {
  // Each connection's reference lists (VAT rates, items, currencies), kept with its client.
  const references = new Map<string, { api: AccountingApi; cache: ReferenceCache }>();
  return {
    logger: shared.logger,
    async depsFor(connection) {
      const entry = await deps.registry.get(connection);
      if (!entry || entry.paused) {
        const why = entry ? 'is paused' : 'is not in the connection registry';
        throw new RetryLaterError(`connection '${connection}' ${why}`);
      }
      deps.limiter?.setLimit(entry.name, entry.rateLimit);
      const api = await deps.clients.apiFor(entry);
      let held = references.get(connection);
      references.delete(connection);
      if (held?.api !== api) {
        held = { api, cache: createReferenceCache(api, deps.clock, deps.referenceCacheSeconds) };
      }
      references.set(connection, held); // most recently used last
      if (references.size > DEFAULT_MAX_CLIENTS) references.delete(references.keys().next().value as string);
      // Its events carry the connection's own source, as its poller's and actions' do.
      const config = { ...shared.config, eventSource: connectionEventSource(entry) };
      return { ...shared, config, api, references: held.cache };
    },
  };
}

export type ImportEntry = (raw: unknown, options?: RunOptions) => Promise<EntryResult>;

/**
 * One queued message (parsed JSON) → the import into the connection it names, read from the
 * registry (`imports`); `invalid` when it is not an intake message or its claim-checked order
 * cannot be read back as stored (`orderStore`: where the endpoint put it).
 */
export function createImportEntry(imports: ConnectionImports, orderStore?: ObjectStore): ImportEntry {
  return async (raw, options = {}) => {
    let message: unknown;
    try {
      message = await withClaimedOrder(raw, orderStore);
    } catch (error) {
      if (!(error instanceof OrderClaimCheckError)) throw error;
      if (options.logInvalid !== false)
        imports.logger.error('invalid intake message', { issues: [error.message] });
      return { status: 'invalid', reason: error.message.slice(0, 500) };
    }
    const parsed = intakeMessageSchema.safeParse(message);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 20).map((i) => `${i.path.join('.')}: ${i.message}`);
      if (options.logInvalid !== false) imports.logger.error('invalid intake message', { issues });
      return { status: 'invalid', reason: issues.join('; ').slice(0, 500) };
    }
    return importOrder(await imports.depsFor(parsed.data.connection), parsed.data, options);
  };
}
