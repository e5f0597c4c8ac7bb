/**
 * The accounting clients of the connections a poller container has served, one per connection,
 * kept between invocations (their keep-alive pools, OAuth tokens and cached secrets with them) and
 * bounded: the least recently used is closed when there are more than `max`. A client is built
 * anew when its connection's entry changed where it matters (variant, URLs, secret reference).
 */
import type { AccountingApi } from '../accounting/api.js';
import type { ConnectionEntry } from '../core/connections/connection-entry.js';

export interface ConnectionClient extends AccountingApi {
  stats?(): { requests: number; rateLimited: number };
  close?(): Promise<void>;
}

export interface ConnectionClients {
  apiFor(entry: ConnectionEntry): Promise<ConnectionClient>;
  /** Clients held now. */
  size(): number;
  close(): Promise<void>;
}

export const DEFAULT_MAX_CLIENTS = 64;

const fingerprint = (e: ConnectionEntry) =>
  [e.name, e.variant, e.baseUrl ?? '', e.authUrl ?? '', e.credentialsSecret].join('\u0000');

export function createConnectionClients(options: {
  build(entry: ConnectionEntry): Promise<ConnectionClient>;
  max?: number;
}): ConnectionClients {
  const max = Math.max(1, options.max ?? DEFAULT_MAX_CLIENTS);
  const held = new Map<string, { fingerprint: string; client: Promise<ConnectionClient> }>();
  const dispose = (client: Promise<ConnectionClient>) => {
    client.then((c) => c.close?.()).catch(() => {});
  };
  return {
    apiFor(entry) {
      const current = held.get(entry.name);
      held.delete(entry.name);
      if (current && current.fingerprint === fingerprint(entry)) {
        held.set(entry.name, current); // most recently used last
        return current.client;
      }
      if (current) dispose(current.client);
      const client = options.build(entry);
      const slot = { fingerprint: fingerprint(entry), client };
      held.set(entry.name, slot);
      // A failed build is not kept: the next poll tries again (a secret may have been put meanwhile).
      client.catch(() => {
        if (held.get(entry.name) === slot) held.delete(entry.name);
      });
      while (held.size > max) {
        const [oldest, value] = held.entries().next().value as [
          string,
          { client: Promise<ConnectionClient> },
        ];
        held.delete(oldest);
        dispose(value.client);
      }
      return client;
    },
    size: () => held.size,
    async close() {
      const all = [...held.values()];
      held.clear();
      await Promise.all(all.map((v) => v.client.then((c) => c.close?.()).catch(() => {})));
    },
  };
}
