/**
 * The intake takes its connection from the path: `/intake/{connection}/{source}` queues the order
 * for that connection of the registry and announces it under the connection's source;
 * `/intake/{source}` means the deployment's own connection. An unknown connection is 404, a paused
 * one 503, and neither queues nor publishes anything; the registry is read only for a signed
 * request. Through the use case, the Lambda handler (both routes' path parameters) and the local
 * node:http server.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startIntakeHttpServer } from '#functions/adapters/local/intake-http-server.js';
import { type ConnectionEntry, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import {
  ownConnectionRegistry,
  registryIntakeConnections,
} from '#functions/core/intake/intake-connections.js';
import type { EnqueueOptions, IntakeQueue } from '#functions/core/intake/ports.js';
import { type ReceiveDeps, receiveWebhook } from '#functions/core/intake/receive-webhook.js';
import type { QueuedIntakeMessage } from '#functions/core/intake/shop-order.js';
import { signHeaders } from '#functions/core/intake/signatures.js';
import { createHandler } from '#functions/handlers/intake-webhook.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { systemClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { memoryRegistry } from '../connections/support.js';
import { SECRETS } from './support.js';

const entry = (name: string, paused = false): ConnectionEntry =>
  parseConnectionEntry({
    name,
    variant: 'sk',
    baseUrl: 'https://api.example.sk',
    collections: ['ReceivedOrders'],
    credentialsSecret: 'deployment',
    paused,
  });

/** `own`: the connection `/intake/{source}` means (none in a local run of many). */
function bed(own: string | null = 'shop-a') {
  const registry = memoryRegistry([entry('shop-a'), entry('shop-b'), entry('held', true)]);
  const reads: string[] = [];
  const counted = {
    get: (name: string) => {
      reads.push(name);
      return registry.get(name);
    },
  };
  const sent: { message: QueuedIntakeMessage; options: EnqueueOptions }[] = [];
  const queue: IntakeQueue = { send: async (message, options) => void sent.push({ message, options }) };
  const publisher = recordingPublisher();
  const deps: ReceiveDeps = {
    config: loadIntakeConfig(SECRETS),
    connections: registryIntakeConnections(counted, own ?? undefined),
    queue,
    publisher,
    clock: systemClock,
    logger: recordingLogger(),
  };
  return { deps, sent, publisher, reads };
}

const NO_OWN_CONNECTION = null;

/** A signed generic delivery of order `n`. */
function delivery(n: number, secret = SECRETS.INTAKE_GENERIC_SECRET) {
  const body = JSON.stringify(sampleOrder('generic', n));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      ...signHeaders('generic', secret, body, { deliveryId: `d-${n}`, now: new Date() }),
    },
  };
}

const post = (deps: ReceiveDeps, n: number, connection?: string) => {
  const { body, headers } = delivery(n);
  return receiveWebhook(deps, {
    method: 'POST',
    source: 'generic',
    ...(connection !== undefined ? { connection } : {}),
    headers,
    body: Buffer.from(body),
  });
};

describe('the intake takes its connection from the path', () => {
  it('queues each order for the connection its path names, announced under that connection', async () => {
    const { deps, sent, publisher } = bed();
    expect((await post(deps, 1, 'shop-b')).status).toBe(202);
    expect((await post(deps, 2, 'shop-a')).status).toBe(202);
    expect((await post(deps, 3)).status).toBe(202); // `/intake/{source}`: the own connection
    expect(sent.map((s) => s.message.connection)).toEqual(['shop-b', 'shop-a', 'shop-a']);
    const received = publisher.ofType('EshopOrder.Received');
    expect(received.map((e) => e.source)).toEqual([
      'accounting.shop-b',
      'accounting.shop-a',
      'accounting.shop-a',
    ]);
    expect(received.map((e) => (e.detail as { connection: string }).connection)).toEqual([
      'shop-b',
      'shop-a',
      'shop-a',
    ]);
    // Two shops may number their deliveries and orders alike: the queue keeps them apart.
    expect(sent[0]?.options.deduplicationId).toBe('shop-b:generic:d-1');
    expect(sent[0]?.options.groupId).toBe(`shop-b:generic:${sampleOrder('generic', 1).id}`);
  });

  it('answers 404 for a connection not in the registry and 503 for a paused one, queueing nothing', async () => {
    const { deps, sent, publisher } = bed();
    const unknown = await post(deps, 1, 'nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'no intake for this connection' });
    expect((await post(deps, 2, 'Not..A-Name')).status).toBe(404);
    const paused = await post(deps, 3, 'held');
    expect(paused.status).toBe(503);
    expect(paused.headers).toMatchObject({ 'retry-after': '300' });
    expect(sent).toEqual([]);
    expect(publisher.events).toEqual([]);
  });

  it('without an own connection (a run of many), `/intake/{source}` asks for the connection', async () => {
    const { deps, sent } = bed(NO_OWN_CONNECTION);
    const res = await post(deps, 1);
    expect(res.status).toBe(404);
    expect(String(res.body.error)).toContain('/intake/<connection>/<source>');
    expect((await post(deps, 2, 'shop-b')).status).toBe(202);
    expect(sent.map((s) => s.message.connection)).toEqual(['shop-b']);
  });

  it("a single-company deployment's endpoint knows its own connection only, from no service settings", async () => {
    const own = registryIntakeConnections(
      ownConnectionRegistry({ connection: 'solo', eventSource: 'accounting.solo' }),
      'solo',
    );
    expect(await own.resolve(undefined)).toEqual({ connection: 'solo', eventSource: 'accounting.solo' });
    expect(await own.resolve('solo')).toEqual({ connection: 'solo', eventSource: 'accounting.solo' });
    expect(await own.resolve('other')).toBe('unknown');
  });

  it('reads the registry only for a request whose signature is verified', async () => {
    const { deps, reads } = bed();
    const { body, headers } = delivery(
      1,
      `whsec_${Buffer.from('another-secret-0123456789abcdef0').toString('base64')}`,
    );
    const res = await receiveWebhook(deps, {
      method: 'POST',
      source: 'generic',
      connection: 'shop-b',
      headers,
      body: Buffer.from(body),
    });
    expect(res.status).toBe(401);
    expect(reads).toEqual([]);
  });
});

describe('both routes reach the connection', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  const apiEvent = (path: Record<string, string>, d: ReturnType<typeof delivery>): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey: path.connection ? 'ANY /intake/{connection}/{source}' : 'ANY /intake/{source}',
      rawPath: `/intake/${Object.values(path).join('/')}`,
      rawQueryString: '',
      headers: d.headers,
      pathParameters: path,
      requestContext: { http: { method: 'POST' } },
      body: d.body,
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2;

  it('on Lambda: the {connection} path parameter, or none', async () => {
    const { deps, sent } = bed();
    const handler = createHandler(deps);
    const named = await handler(apiEvent({ connection: 'shop-b', source: 'generic' }, delivery(1)));
    expect(named.statusCode).toBe(202);
    expect((await handler(apiEvent({ source: 'generic' }, delivery(2)))).statusCode).toBe(202);
    expect(
      (await handler(apiEvent({ connection: 'nobody', source: 'generic' }, delivery(3)))).statusCode,
    ).toBe(404);
    expect(sent.map((s) => s.message.connection)).toEqual(['shop-b', 'shop-a']);
  });

  it('locally: POST /intake/<connection>/<source> and /intake/<source> on node:http', async () => {
    const { deps, sent } = bed();
    const server = await startIntakeHttpServer({
      port: 0,
      maxBodyBytes: deps.config.maxBodyBytes,
      handle: (r) => receiveWebhook(deps, r),
      logger: deps.logger,
    });
    servers.push(server);
    const send = async (path: string, n: number) => {
      const d = delivery(n);
      const res = await request(`${server.url}${path}`, { method: 'POST', headers: d.headers, body: d.body });
      await res.body.dump();
      return res.statusCode;
    };
    expect(await send('/intake/shop-b/generic', 1)).toBe(202);
    expect(await send('/intake/generic', 2)).toBe(202);
    expect(await send('/intake/held/generic', 3)).toBe(503);
    expect(await send('/intake/shop-b/generic/extra', 4)).toBe(404);
    expect(sent.map((s) => s.message.connection)).toEqual(['shop-b', 'shop-a']);
  });
});
