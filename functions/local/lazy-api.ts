/**
 * An `AccountingApi` over a client that is opened on first use (a connection whose credentials are
 * read when it is first polled, and again after they failed), noting each failure of the
 * connection as a whole for its health (the change detector keeps only a summary of each error).
 */
import type { AccountingApi, ListOptions } from '../accounting/api.js';
import type { AccountingClient } from '../accounting/client.js';
import type { CollectionName } from '../accounting/collections.js';

export interface LazyApi extends AccountingApi {
  /** The open client's counters (zero before it opens): the poll handler counts requests with them. */
  stats(): { requests: number; rateLimited: number };
}

export function lazyApi(
  open: () => Promise<AccountingClient>,
  opened: () => AccountingClient | undefined,
  onFailure: (error: unknown) => void,
): LazyApi {
  const note = (error: unknown) => {
    onFailure(error);
    return error;
  };
  const pages = (collection: CollectionName, options?: ListOptions) =>
    (async function* () {
      try {
        yield* (await open()).listPages(collection, options);
      } catch (error) {
        throw note(error);
      }
    })();
  const later =
    <A extends unknown[], R>(call: (api: AccountingApi, ...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      open()
        .then((api) => call(api, ...args))
        .catch((error: unknown) => Promise.reject(note(error)));
  return {
    stats: () => opened()?.stats() ?? { requests: 0, rateLimited: 0 },
    listPages: pages as AccountingApi['listPages'],
    listItems: ((collection: CollectionName, options?: ListOptions) =>
      (async function* () {
        for await (const page of pages(collection, options)) yield* page.items;
      })()) as AccountingApi['listItems'],
    get: later((api, collection: CollectionName, id: string, signal?: AbortSignal) =>
      api.get(collection, id, signal),
    ) as AccountingApi['get'],
    create: later((api, operationId: string, input?: Parameters<AccountingApi['create']>[1]) =>
      api.create(operationId, input),
    ) as AccountingApi['create'],
    call: later((api, operationId: string, input?: Parameters<AccountingApi['call']>[1]) =>
      api.call(operationId, input),
    ) as AccountingApi['call'],
    download: later((api, operationId: string, input?: Parameters<AccountingApi['download']>[1]) =>
      api.download(operationId, input),
    ) as AccountingApi['download'],
  };
}
