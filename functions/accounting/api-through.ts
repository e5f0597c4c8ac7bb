/** An `AccountingApi` that forwards every call to another, found at the moment of the call. */
import type { AccountingApi, ApiRecord, ListOptions } from './api.js';
import type { CollectionName } from './collections.js';
import { operationMethodsThrough } from './operation-methods.js';

/**
 * Every method of the api `resolve` gives when the method is called (a client opened on first
 * use, a wrapper that observes some calls); a list resolves it when it is first iterated.
 */
export function apiThrough(resolve: () => AccountingApi | Promise<AccountingApi>): AccountingApi {
  const pages = (collection: CollectionName, options?: ListOptions) =>
    (async function* () {
      yield* (await resolve()).listPages(collection, options);
    })();
  return {
    ...operationMethodsThrough(resolve),
    listPages: pages as AccountingApi['listPages'],
    listItems: ((collection: CollectionName, options?: ListOptions) =>
      (async function* () {
        for await (const page of pages(collection, options)) yield* page.items;
      })()) as AccountingApi['listItems'],
    get: (async (collection: CollectionName, id: string, signal?: AbortSignal) =>
      (await resolve()).get(collection, id, signal)) as AccountingApi['get'],
    pdf: async (input) => (await resolve()).pdf(input),
    isdoc: async (input) => (await resolve()).isdoc(input),
    importDocument: async (input) => (await resolve()).importDocument(input),
    create: async <T extends ApiRecord = ApiRecord>(...args: Parameters<AccountingApi['create']>) =>
      (await resolve()).create<T>(...args),
  };
}
