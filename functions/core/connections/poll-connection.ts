/**
 * One poll of one connection of the registry: its collections with the change detector
 * (`pollAll`), under its own name — checkpoints `<connection>#<collection>`, event source
 * `accounting.<connection>`, `detail.connection` — then its health: a connection whose every
 * collection failed for a reason of the connection as a whole (refused credentials, no answer), or
 * whose credentials could not be had at all, is unhealthy (one `Connection.Unhealthy` per change);
 * one that answered is healthy again. Nothing here touches another connection's state.
 */
import type { AccountingApi, ListOptions } from '#functions/accounting/api.js';
import { apiThrough } from '#functions/accounting/api-through.js';
import { type CollectionName, defaultPolledCollectionsFor } from '#functions/accounting/collections.js';
import { ConfigError } from '#functions/shared/config.js';
import { connectionEventSource } from '../connection.js';
import { type PollAllSummary, pollAll } from '../sync/poll-all.js';
import type { PollOptions } from '../sync/poll-options.js';
import type { SyncDeps } from '../sync/sync-types.js';
import type { ConnectionEntry } from './connection-entry.js';
import { ConnectionSecretError } from './connection-secret.js';
import { classifyConnectionFailure, type HealthReport, type HealthState, recordHealth } from './health.js';

export interface ConnectionPollDeps extends Omit<SyncDeps, 'api'> {
  /**
   * The connection's client (built from its entry and its secret; cached by the caller). A
   * `ConnectionSecretError` or the client's `ConfigError` means the credentials cannot be had.
   */
  apiFor(entry: ConnectionEntry): Promise<AccountingApi>;
  /** Announced health states kept between polls (a poller that owns its connections); see `recordHealth`. */
  healthKnown?: Map<string, HealthState>;
  /**
   * Per connection, the collections its service answered 404 in this run (a poller that owns its
   * connections keeps them for its container's life): reported once, then skipped.
   */
  unavailableKnown?: Map<string, Set<string>>;
}

export interface ConnectionPollSettings {
  /** Options shared by every connection; `connection`, `variant` and `source` come from the entry. */
  options: Omit<PollOptions, 'connection' | 'variant' | 'source'>;
  concurrency: number;
}

export interface ConnectionPollResult {
  connection: string;
  /** The poll ran (`false`: the client could not be built; see `health`). */
  polled: boolean;
  summary?: PollAllSummary;
  /** What was recorded as the connection's health (absent: the failures were not the connection's). */
  health?: HealthReport;
}

/** The `source` of a connection's events (`accounting.<connection>`). */
export const sourceOf = connectionEventSource;

export function collectionsOf(entry: ConnectionEntry): CollectionName[] {
  return entry.collections ?? [...defaultPolledCollectionsFor(entry.variant)];
}

/**
 * The API with the first failure of the connection as a whole remembered (the change detector
 * keeps only a summary of each collection's error).
 */
function observeConnectionFailures(api: AccountingApi): {
  api: AccountingApi;
  failure(): HealthReport | undefined;
} {
  let first: HealthReport | undefined;
  const note = (error: unknown) => {
    first ??= classifyConnectionFailure(error);
    return error;
  };
  const pages = (collection: CollectionName, options?: ListOptions) =>
    (async function* () {
      try {
        yield* api.listPages(collection, options);
      } catch (error) {
        throw note(error);
      }
    })();
  return {
    failure: () => first,
    api: {
      ...apiThrough(() => api),
      listPages: pages as AccountingApi['listPages'],
      listItems: ((collection: CollectionName, options?: ListOptions) =>
        (async function* () {
          for await (const page of pages(collection, options)) yield* page.items;
        })()) as AccountingApi['listItems'],
      get: ((collection: CollectionName, id: string, signal?: AbortSignal) =>
        api
          .get(collection, id, signal)
          .catch((e: unknown) => Promise.reject(note(e)))) as AccountingApi['get'],
    },
  };
}

/** Healthy when any collection answered; unhealthy when all failed for a reason of the connection. */
export function healthOf(
  summary: { readonly collections: readonly { readonly status: string }[] },
  failure: HealthReport | undefined,
): HealthReport | undefined {
  const answered = summary.collections.some((c) => c.status === 'ok' || c.status === 'unavailable');
  if (answered) return { ok: true };
  return failure;
}

/** The connection's 404 collections of this run, when the caller keeps them per connection. */
function unavailableOf(deps: ConnectionPollDeps, connection: string): { unavailable?: Set<string> } {
  if (deps.unavailable || !deps.unavailableKnown) return {};
  let known = deps.unavailableKnown.get(connection);
  if (!known) {
    known = new Set();
    deps.unavailableKnown.set(connection, known);
  }
  return { unavailable: known };
}

export async function pollConnection(
  deps: ConnectionPollDeps,
  entry: ConnectionEntry,
  settings: ConnectionPollSettings,
): Promise<ConnectionPollResult> {
  const source = connectionEventSource(entry);
  const health = { ...deps, source, ...(deps.healthKnown ? { known: deps.healthKnown } : {}) };
  let api: AccountingApi;
  try {
    api = await deps.apiFor(entry);
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof ConnectionSecretError)) throw error;
    const report: HealthReport = { ok: false, reason: 'credentials', error: { name: (error as Error).name } };
    deps.logger.warn('connection credentials unavailable', {
      connection: entry.name,
      error: report.error.name,
    });
    await recordHealth(health, entry.name, report);
    return { connection: entry.name, polled: false, health: report };
  }
  const observed = observeConnectionFailures(api);
  const options: PollOptions = {
    ...settings.options,
    connection: entry.name,
    variant: entry.variant,
    source,
  };
  const summary = await pollAll(
    { ...deps, api: observed.api, ...unavailableOf(deps, entry.name) },
    options,
    collectionsOf(entry),
    settings.concurrency,
  );
  const report = healthOf(summary, observed.failure());
  if (report) await recordHealth(health, entry.name, report);
  return { connection: entry.name, polled: true, summary, ...(report ? { health: report } : {}) };
}
