/** The one connection the intake tests import into, and the import through its registry of one. */
import { parseConnectionEntry } from '../../functions/core/connections/connection-entry.js';
import type { ImportDeps } from '../../functions/core/intake/import-order.js';
import { registryOfOne } from '../../functions/wiring/connection-clients.js';
import { type ConnectionImports, connectionImports } from '../../functions/wiring/connection-imports.js';

/** The connection the intake tests import into, as its registry of one holds it. */
export const ACME = parseConnectionEntry({
  name: 'acme',
  variant: 'sk',
  baseUrl: 'https://api.example.sk',
  collections: ['ReceivedOrders'],
  credentialsSecret: 'deployment',
});

/**
 * The import of `deps`'s one connection through its registry of one (`ACME`), as the importer
 * runs it; its reference lists are cached for `referenceCacheSeconds`.
 */
export function importsOfOne(
  deps: Omit<ImportDeps, 'references'>,
  referenceCacheSeconds = 300,
): ConnectionImports {
  const { api: _api, ...shared } = deps;
  const one = registryOfOne(ACME, deps.api);
  return connectionImports(shared, {
    registry: one.registry,
    clients: one,
    clock: deps.clock,
    referenceCacheSeconds,
  });
}
