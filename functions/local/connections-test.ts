/**
 * `connections test NAME`: resolves the connection's secret, then asks the service for one record
 * (page size 1) of each collection — the entry's poll set, or every collection of the variant with
 * `--all` — and reports per collection: answered, 404 (not offered), refused (403) or the error's
 * name. Refused credentials or an unreachable service stop the probe. Nothing secret is ever printed: only the reference.
 */

import { createAccountingClient } from '../accounting/client.js';
import {
  type CollectionName,
  collectionNamesFor,
  defaultPolledCollectionsFor,
} from '../accounting/collections.js';
import type { AccountingConfig } from '../accounting/config.js';
import {
  AuthenticationError,
  ConnectionError,
  ForbiddenError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
} from '../accounting/errors.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';

export type ProbeResult =
  | { collection: CollectionName; result: 'answered'; records: number | undefined }
  | { collection: CollectionName; result: 'not-found' | 'refused' | 'credentials-refused' }
  | { collection: CollectionName; result: 'unreachable'; error: string }
  | { collection: CollectionName; result: 'error'; error: string; status?: number };

export interface ConnectionTestReport {
  connection: string;
  variant: string;
  baseUrl: string;
  credentialsSecret: string;
  credentials: 'accepted' | 'refused' | 'unknown';
  collections: ProbeResult[];
}

async function probe(
  client: ReturnType<typeof createAccountingClient>,
  collection: CollectionName,
  signal: AbortSignal,
): Promise<ProbeResult> {
  try {
    for await (const page of client.listPages(collection, { pageSize: 1, signal })) {
      return {
        collection,
        result: 'answered',
        records: Number.isFinite(page.totalItemCount) ? page.totalItemCount : undefined,
      };
    }
    return { collection, result: 'answered', records: 0 };
  } catch (error) {
    if (error instanceof AuthenticationError || error instanceof UnauthorizedError) {
      return { collection, result: 'credentials-refused' };
    }
    if (error instanceof NotFoundError) return { collection, result: 'not-found' };
    if (error instanceof ForbiddenError) return { collection, result: 'refused' };
    if (signal.aborted) throw error;
    if (error instanceof ConnectionError || error instanceof TimeoutError) {
      return { collection, result: 'unreachable', error: error.name };
    }
    const status = (error as { status?: unknown }).status;
    return {
      collection,
      result: 'error',
      error: error instanceof Error ? error.name : 'Error',
      ...(typeof status === 'number' ? { status } : {}),
    };
  }
}

/** Probes the collections one request each, in order; stops at refused credentials. */
export async function testConnection(
  entry: ConnectionEntry,
  config: AccountingConfig,
  options: { all: boolean; signal: AbortSignal },
): Promise<ConnectionTestReport> {
  const collections = options.all
    ? collectionNamesFor(entry.variant)
    : (entry.collections ?? defaultPolledCollectionsFor(entry.variant));
  // A probe, not a poll: one retry at most, so a dead service answers quickly.
  const client = createAccountingClient({ ...config, maxAttempts: Math.min(config.maxAttempts, 2) });
  const results: ProbeResult[] = [];
  try {
    for (const collection of collections) {
      const result = await probe(client, collection, options.signal);
      results.push(result);
      // Refused credentials or an unreachable service answer every other collection the same way.
      if (result.result === 'credentials-refused' || result.result === 'unreachable') break;
    }
  } finally {
    await client.close();
  }
  const refused = results.some((r) => r.result === 'credentials-refused');
  const answered = results.some((r) => r.result !== 'error' && r.result !== 'unreachable');
  return {
    connection: entry.name,
    variant: entry.variant,
    baseUrl: config.baseUrl,
    credentialsSecret: entry.credentialsSecret,
    credentials: refused ? 'refused' : answered ? 'accepted' : 'unknown',
    collections: results,
  };
}

export function describeProbe(r: ProbeResult): string {
  switch (r.result) {
    case 'answered':
      return r.records === undefined
        ? 'answered'
        : `answered (${r.records} ${r.records === 1 ? 'record' : 'records'})`;
    case 'not-found':
      return '404 (not offered by this service)';
    case 'refused':
      return 'refused (403: these credentials may not read it)';
    case 'credentials-refused':
      return 'credentials refused (401)';
    case 'unreachable':
      return `unreachable: ${r.error} (the other collections were not tried)`;
    case 'error':
      return `error: ${r.error}${r.status !== undefined ? ` (${r.status})` : ''}`;
  }
}
