/**
 * A frozen Lambda wakes up with keep-alive sockets the server already closed. The first request on
 * such a socket fails before any response byte; the client repeats a read once on a fresh socket,
 * and never repeats a side effect.
 */
import { describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { OutcomeUnknownError } from '#functions/accounting/errors.js';
import { createAgent } from '#functions/accounting/transport.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import {
  type RecordedRequest,
  type Reply,
  startFakeServer,
  useFakeServer,
} from '../fakes/accounting-server.js';

const ID = '55555555-5555-5555-5555-555555555555';

/** Answers the first request of each connection; kills a reused connection without a byte. */
const staleAfterFirst =
  (ok: Reply) =>
  (req: RecordedRequest): Reply =>
    req.requestOnSocket > 1 ? { drop: 'before-response' } : ok;

/** Waits until the agent holds an idle (reusable) connection to `origin`. */
async function idleSocket(agent: ReturnType<typeof createAgent>, origin: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const stats = agent.stats[origin] as { free?: number } | undefined;
    if ((stats?.free ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no idle connection');
}

const agentOptions = { connectTimeoutMs: 1_000, bodyTimeoutMs: 5_000, keepAliveTimeoutMs: 30_000 };

describe('stale keep-alive sockets', () => {
  const server = useFakeServer();

  it('repeats a read once on a fresh connection', async () => {
    server.route('GET', `/v1/Banks/${ID}`, staleAfterFirst({ body: { Id: ID } }));
    const clock = createManualClock({ autoAdvance: true });
    const agent = createAgent(agentOptions);
    const client = createAccountingClient(apiKeyConfig(server.url, { maxAttempts: 1 }), {
      clock,
      dispatcher: agent,
    });
    await client.get('Banks', ID);
    await idleSocket(agent, server.url);
    await client.get('Banks', ID); // goes out on the kept-alive socket, which is now "stale"
    expect(server.requests).toHaveLength(3);
    expect(server.connections()).toBe(2);
    expect(client.stats().staleSocketRetries).toBe(1);
    expect(clock.sleeps).toEqual([]); // at once, no backoff
    await agent.close();
  });

  it('reports a side effect on a stale socket as OutcomeUnknownError', async () => {
    server.route('GET', `/v1/Banks/${ID}`, { body: { Id: ID } });
    server.route('POST', '/v1/IssuedInvoices', (req) =>
      req.requestOnSocket > 1 ? { drop: 'before-response' } : { status: 201, body: { Data: { Id: 'new' } } },
    );
    const agent = createAgent(agentOptions);
    const client = createAccountingClient(apiKeyConfig(server.url), {
      clock: createManualClock({ autoAdvance: true }),
      dispatcher: agent,
    });
    await client.get('Banks', ID);
    await idleSocket(agent, server.url);
    const error = await client
      .create('IssuedInvoices.create', { body: { Items: [{ TextItem: { Text: 'x' } }] } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(server.hits('POST', '/v1/IssuedInvoices')).toHaveLength(1);
    await agent.close();
  });
});

describe('side effects after a long idle', () => {
  it('go out on fresh connections, so a thawed process does not lose them to a stale socket', async () => {
    const server = await startFakeServer();
    server.route('GET', `/v1/Banks/${ID}`, { body: { Id: ID } });
    server.route('POST', '/v1/IssuedInvoices', (req) =>
      req.requestOnSocket > 1 ? { drop: 'before-response' } : { status: 201, body: { Data: { Id: 'new' } } },
    );
    const clock = createManualClock();
    const client = createAccountingClient(apiKeyConfig(server.url), { clock });
    await client.get('Banks', ID);
    await new Promise((r) => setTimeout(r, 20)); // let the socket return to the pool
    clock.advance(60_000); // the process was frozen for a minute
    const created = await client.create('IssuedInvoices.create', {
      body: { Items: [{ TextItem: { Text: 'x' } }] },
    });
    expect(created.data?.Id).toBe('new');
    expect(client.stats().connectionRefreshes).toBe(1);
    expect(server.hits('POST', '/v1/IssuedInvoices')[0]?.requestOnSocket).toBe(1);
    await client.close();
    await server.close();
  });
});
