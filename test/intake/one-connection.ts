/** The one connection the intake tests import into, and the import through its registry of one. */
import type { ImportDeps } from '../../functions/core/intake/import-order.js';
import {
  type ConnectionImports,
  clientOfOne,
  connectionImports,
} from '../../functions/wiring/connection-imports.js';
import { localEntry } from '../../functions/local/local-entry.js';

/** The connection the intake tests import into, as its registry of one holds it. */
export const ACME = localEntry({ name: 'acme', variant: 'sk', collections: ['ReceivedOrders'] });

/**
 * The import of `deps`'s one connection through its registry of one (`ACME`), as the importer
 * runs it; its reference lists are cached for `referenceCacheSeconds`.
 */
export function importsOfOne(
  deps: Omit<ImportDeps, 'references'>,
  referenceCacheSeconds = 300,
): ConnectionImports {
  const { api: _api, ...shared } = deps;
  return connectionImports(shared, {
    registry: { get: async (name) => (name === ACME.name ? ACME : undefined) },
    clients: clientOfOne(deps.api),
    clock: deps.clock,
    referenceCacheSeconds,
  });
}
