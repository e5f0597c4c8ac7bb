/**
 * undici's keep-alive `Agent` and its `request`, imported from the modules that define them rather
 * than from the package's index, which loads all of undici (fetch, WebSocket, caches, mocks, proxy
 * agents): a Lambda bundle of the accounting client is about 230 KB smaller. The types are the
 * package's own (./undici-lib.d.ts). `request` is called with the dispatcher as `this`, as the
 * index's `request(url, options)` does after splitting the URL into origin and path.
 */
import type { Dispatcher } from 'undici';
import apiRequest from 'undici/lib/api/api-request.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';

export const Agent = AgentClass;
export type Agent = InstanceType<typeof AgentClass>;

export interface RequestInput {
  dispatcher: Dispatcher;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal;
}

/** `undici.request(url, options)` on the given dispatcher. */
export function request(url: URL, input: RequestInput): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...options } = input;
  return apiRequest.call(dispatcher, {
    ...options,
    origin: url.origin,
    path: url.search ? `${url.pathname}${url.search}` : url.pathname,
  });
}
