/**
 * The baseline the benchmark compares against: a naive full-scan poller. Every cycle it reads
 * every page of every collection by page number (no `ModifiedSince`, no keyset), hashes each
 * record and diffs the hashes with the previous cycle to find created, updated and deleted records.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';

export interface NaiveCycleResult {
  requests: number;
  records: number;
  created: number;
  updated: number;
  deleted: number;
}

export interface NaivePoller {
  cycle(): Promise<NaiveCycleResult>;
  close(): Promise<void>;
}

export function createNaivePoller(options: {
  baseUrl: string;
  headers: Record<string, string>;
  collections: readonly string[];
  pageSize: number;
}): NaivePoller {
  const agent = new Agent({ connections: 4 });
  /** collection → id → hash of the record's JSON. */
  const known = new Map<string, Map<string, string>>();

  async function scan(collection: string, result: NaiveCycleResult): Promise<void> {
    const previous = known.get(collection) ?? new Map<string, string>();
    const next = new Map<string, string>();
    for (let page = 1; ; page += 1) {
      const url = `${options.baseUrl}/v1/${collection}?PageNumber=${page}&PageSize=${options.pageSize}`;
      const res = await request(url, {
        headers: { accept: 'application/json', ...options.headers },
        dispatcher: agent,
      });
      result.requests += 1;
      if (res.statusCode !== 200) {
        const text = await res.body.text();
        throw new Error(
          `naive poller: GET ${collection} page ${page} answered ${res.statusCode}: ${text.slice(0, 200)}`,
        );
      }
      const body = (await res.body.json()) as {
        Items?: { Id: string }[];
        TotalItemCount?: number;
        Pagination?: { PageSize?: number } | null;
      };
      // The server may cap the page size; the applied one decides whether this was the last page.
      const applied = body.Pagination?.PageSize ?? options.pageSize;
      const items = body.Items ?? [];
      for (const item of items) {
        const hash = createHash('sha1').update(JSON.stringify(item)).digest('base64');
        const before = previous.get(item.Id);
        if (before === undefined) result.created += 1;
        else if (before !== hash) result.updated += 1;
        next.set(item.Id, hash);
      }
      result.records += items.length;
      const total = body.TotalItemCount ?? Number.POSITIVE_INFINITY;
      if (items.length === 0 || items.length < applied || page * applied >= total) break;
    }
    for (const id of previous.keys()) if (!next.has(id)) result.deleted += 1;
    known.set(collection, next);
  }

  return {
    async cycle() {
      const result: NaiveCycleResult = { requests: 0, records: 0, created: 0, updated: 0, deleted: 0 };
      for (const collection of options.collections) await scan(collection, result);
      return result;
    },
    close: () => agent.close(),
  };
}
