/** The sandbox's request counters: per endpoint, per credential, and both. */

export interface RequestCounts {
  total: number;
  byEndpoint: Record<string, number>;
  byCredential: Record<string, number>;
  byEndpointAndCredential: Record<string, Record<string, number>>;
}

export function emptyRequestCounts(): RequestCounts {
  return { total: 0, byEndpoint: {}, byCredential: {}, byEndpointAndCredential: {} };
}

export function countRequest(counts: RequestCounts, endpoint: string, credential: string): void {
  counts.total++;
  counts.byEndpoint[endpoint] = (counts.byEndpoint[endpoint] ?? 0) + 1;
  counts.byCredential[credential] = (counts.byCredential[credential] ?? 0) + 1;
  const byCred = counts.byEndpointAndCredential[endpoint] ?? {};
  counts.byEndpointAndCredential[endpoint] = byCred;
  byCred[credential] = (byCred[credential] ?? 0) + 1;
}
