/** The one connection the intake tests import into, and the import through its registry of one. */
import { parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import type { ImportDeps } from '#functions/core/intake/import-order.js';
import {
  type IntakeConnections,
  registryIntakeConnections,
} from '#functions/core/intake/intake-connections.js';
import { registryOfOne } from '#functions/wiring/connection-clients.js';
import { type ConnectionImports, connectionImports } from '#functions/wiring/connection-imports.js';
import { memoryRegistry } from '../connections/support.js';

/** The connection the intake tests import into, as its registry of one holds it. */
const ACME_INPUT = {
  name: 'acme',
  variant: 'sk',
  baseUrl: 'https://api.example.sk',
  collections: ['ReceivedOrders'],
  credentialsSecret: 'deployment',
};
export const ACME = parseConnectionEntry(ACME_INPUT);

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

/**
 * The intake endpoint's connections of a deployment of one: `name` (the intake configuration's
 * connection, `default` unless set) as a registered connection; `/intake/{source}` means it.
 */
export function intakeOfOne(name: string): IntakeConnections {
  return registryIntakeConnections(memoryRegistry([parseConnectionEntry({ ...ACME_INPUT, name })]), name);
}
