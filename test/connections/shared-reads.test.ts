import { describe, expect, it } from 'vitest';
import { createConnectionSecretResolver } from '#functions/adapters/connection-secrets.js';
import { parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { createManualClock } from '#functions/shared/clock.js';
import { silentLogger } from '#functions/shared/logger.js';
import {
  connectionClientBuilder,
  createConnectionClients,
  type SharedReadsOptions,
} from '#functions/wiring/connection-clients.js';
import { listReply, useFakeServer } from '../fakes/accounting-server.js';

/** Ten companies of one service, each listing its invoices once, all at once. */
describe("the poller's clients share one keep-alive pool", () => {
  const server = useFakeServer();
  const variable = (name: string) => `${name.toUpperCase().replaceAll('-', '_')}_CREDENTIALS`;
  const companies = Array.from({ length: 10 }, (_, i) => `company-${i + 1}`);
  const others = companies.map((c) => `${c}-b`);
  const credentials = JSON.stringify({ apiKey: 'k-secret-value' });
  const env = Object.fromEntries(
    [...companies, ...others, 'alpha', 'beta'].map((name) => [variable(name), credentials]),
  );
  const entryOf = (name: string) =>
    parseConnectionEntry({
      name,
      variant: 'cz',
      baseUrl: server.url,
      credentialsSecret: `env:${variable(name)}`,
    });
  const clientsWith = (sharedReads?: SharedReadsOptions) => {
    const clock = createManualClock({ autoAdvance: true });
    const secrets = createConnectionSecretResolver({ env, clock });
    return createConnectionClients({
      build: connectionClientBuilder({
        env: {},
        clock,
        logger: silentLogger,
        secrets,
        ...(sharedReads ? { sharedReads } : {}),
      }),
      max: 100,
    });
  };
  const listAll = async (clients: ReturnType<typeof clientsWith>, names: string[]) => {
    await Promise.all(
      names.map(async (name) => {
        const api = await clients.apiFor(entryOf(name));
        for await (const _ of api.listPages('IssuedInvoices')) {
          // one page each
        }
      }),
    );
  };

  it('ten connections open at most the pool size of sockets, not one pool each', async () => {
    server.route('GET', '/v1/IssuedInvoices', listReply([]));
    const shared = clientsWith({ connections: 2, keepAliveMs: 60_000 });
    await listAll(shared, companies);
    expect(server.requests).toHaveLength(10);
    expect(server.connections()).toBeLessThanOrEqual(2);
    // The next cycle (another shard's connections on this container) reuses the same sockets.
    await listAll(shared, others);
    expect(server.connections()).toBeLessThanOrEqual(2);
    await shared.close();

    const own = clientsWith();
    const before = server.connections();
    await listAll(own, companies);
    expect(server.connections() - before).toBe(10);
    await own.close();
  });

  it('a socket the service closed while the container slept is replaced, the read repeated once', async () => {
    let served = 0;
    server.route('GET', '/v1/IssuedInvoices', (req) => {
      served++;
      // The second request of a socket: the service had closed it (a keep-alive it no longer honours).
      return req.requestOnSocket > 1 ? { drop: 'before-response' } : listReply([]);
    });
    const shared = clientsWith({ connections: 1, keepAliveMs: 60_000 });
    await listAll(shared, ['alpha']);
    await listAll(shared, ['beta']);
    expect(served).toBe(3); // alpha, beta on the dead socket, beta again on a fresh one
    expect(server.connections()).toBe(2);
    await shared.close();
  });
});
