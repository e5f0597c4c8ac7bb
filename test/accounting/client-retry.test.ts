import { describe, expect, it, vi } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import {
  ConnectionError,
  OutcomeUnknownError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from '#functions/accounting/errors.js';
import { parseRetryAfter } from '#functions/accounting/responses.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { problem, startFakeServer, useFakeServer } from '../fakes/accounting-server.js';
import { SERVER_WAIT } from '../support/wait.js';

const ID = '33333333-3333-3333-3333-333333333333';
const bank = { Id: ID, Name: 'Bank' };
const slipPath = `/v1/ReceivedOrders/${ID}/Transfer/ToIssueSlip/Fully`;

describe('accounting client retries', () => {
  const server = useFakeServer();

  it('honours Retry-After in seconds on a GET 429, on the injected clock', async () => {
    server.route('GET', `/v1/Banks/${ID}`, problem(429, {}, { 'retry-after': '7' }), { body: bank });
    const clock = createManualClock({ autoAdvance: true });
    const client = createAccountingClient(apiKeyConfig(server.url), { clock });
    await expect(client.get('Banks', ID)).resolves.toEqual(bank);
    expect(clock.sleeps).toEqual([7_000]);
    expect(client.stats()).toMatchObject({ requests: 2, rateLimited: 1, retries: 1 });
    await client.close();
  });

  it('honours Retry-After as an HTTP date', async () => {
    const clock = createManualClock({ start: '2026-03-01T10:00:00Z', autoAdvance: true });
    server.route(
      'GET',
      `/v1/Banks/${ID}`,
      problem(429, {}, { 'retry-after': 'Sun, 01 Mar 2026 10:00:12 GMT' }),
      {
        body: bank,
      },
    );
    const client = createAccountingClient(apiKeyConfig(server.url), { clock });
    await client.get('Banks', ID);
    expect(clock.sleeps).toEqual([12_000]);
    await client.close();
  });

  it('waits on the manual clock until it is advanced (no real waiting)', async () => {
    server.route('GET', `/v1/Banks/${ID}`, problem(429, {}, { 'retry-after': '30' }), { body: bank });
    const clock = createManualClock();
    const client = createAccountingClient(apiKeyConfig(server.url), { clock });
    const pending = client.get('Banks', ID);
    await vi.waitFor(() => expect(clock.pending()).toBe(1), SERVER_WAIT);
    expect(server.requests).toHaveLength(1);
    clock.advance(29_999);
    expect(clock.pending()).toBe(1);
    clock.advance(1);
    await expect(pending).resolves.toEqual(bank);
    expect(server.requests).toHaveLength(2);
    await client.close();
  });

  it('gives up at once when Retry-After is beyond the cap, keeping retryAfterMs', async () => {
    server.route('GET', `/v1/Banks/${ID}`, problem(429, {}, { 'retry-after': '3600' }));
    const clock = createManualClock({ autoAdvance: true });
    const client = createAccountingClient(apiKeyConfig(server.url, { retryAfterMaxMs: 60_000 }), { clock });
    const error = await client.get('Banks', ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    await client.close();
  });

  it('retries 502/503/504 with exponential backoff and full jitter, then gives up', async () => {
    server.route('GET', `/v1/Banks/${ID}`, problem(502), problem(503), problem(504), problem(503));
    const clock = createManualClock({ autoAdvance: true });
    const client = createAccountingClient(
      apiKeyConfig(server.url, { maxAttempts: 4, retryBaseDelayMs: 100, retryMaxDelayMs: 250 }),
      { clock, random: () => 0.5 },
    );
    const error = await client.get('Banks', ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(503);
    expect(server.requests).toHaveLength(4);
    expect(clock.sleeps).toEqual([50, 100, 125]); // 0.5 × min(250, 100·2^n)
    expect(client.stats().serverErrors).toBe(4);
    await client.close();
  });

  it('retries a GET after a 503 and succeeds', async () => {
    server.route('GET', `/v1/Banks/${ID}`, problem(503), { body: bank });
    const client = createAccountingClient(apiKeyConfig(server.url), {
      clock: createManualClock({ autoAdvance: true }),
    });
    await expect(client.get('Banks', ID)).resolves.toEqual(bank);
    await client.close();
  });

  it('does not retry a 500 (not transient) nor a 4xx', async () => {
    server.route('GET', `/v1/Banks/${ID}`, problem(500));
    const client = createAccountingClient(apiKeyConfig(server.url), {
      clock: createManualClock({ autoAdvance: true }),
    });
    await expect(client.get('Banks', ID)).rejects.toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  it('never repeats a transfer whose connection dropped after it was sent: OutcomeUnknownError', async () => {
    server.route('POST', slipPath, { drop: 'before-response' });
    const client = createAccountingClient(apiKeyConfig(server.url), {
      clock: createManualClock({ autoAdvance: true }),
    });
    const error = await client
      .create('ReceivedOrders.transferToIssueSlip', { params: { id: ID } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(`POST ${slipPath}`);
    expect(server.hits('POST', slipPath)).toHaveLength(1);
    await client.close();
  });

  it('never repeats a create that got a 5xx or lost its body', async () => {
    server.route('POST', '/v1/IssuedInvoices', problem(503), { status: 201, body: { Data: { Id: 'x' } } });
    const client = createAccountingClient(apiKeyConfig(server.url), {
      clock: createManualClock({ autoAdvance: true }),
    });
    const error = await client
      .create('IssuedInvoices.create', { body: { Items: [{ TextItem: { Text: 'x' } }] } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(1);

    server.route('POST', '/v1/IssuedOrders', {
      status: 201,
      body: { Data: { Id: 'abcdefgh' }, Warnings: [] },
      drop: 'mid-body',
    });
    const lost = await client
      .create('IssuedOrders.create', {
        body: { BusinessPartnerAddress: {}, Items: [{ TextItem: { Text: 'x' } }] },
      })
      .catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(OutcomeUnknownError);
    expect(server.hits('POST', '/v1/IssuedOrders')).toHaveLength(1);
    await client.close();
  });

  it('retries a POST refused with 429 (not processed)', async () => {
    server.route('POST', slipPath, problem(429, {}, { 'retry-after': '2' }), {
      status: 201,
      body: { Data: { Id: 'slip-1' }, Warnings: [] },
    });
    const clock = createManualClock({ autoAdvance: true });
    const client = createAccountingClient(apiKeyConfig(server.url), { clock });
    const created = await client.create('ReceivedOrders.transferToIssueSlip', { params: { id: ID } });
    expect(created.data?.Id).toBe('slip-1');
    expect(server.hits('POST', slipPath)).toHaveLength(2);
    expect(clock.sleeps).toEqual([2_000]);
    await client.close();
  });

  it('retries a GET whose connection dropped, and a POST that could not connect at all', async () => {
    server.route(
      'GET',
      `/v1/Banks/${ID}`,
      { drop: 'before-response' },
      { drop: 'before-response' },
      { body: bank },
    );
    const clock = createManualClock({ autoAdvance: true });
    const client = createAccountingClient(apiKeyConfig(server.url), { clock });
    await expect(client.get('Banks', ID)).resolves.toEqual(bank);
    expect(client.stats().staleSocketRetries).toBe(1);
    await client.close();

    const closed = await startFakeServer();
    const url = closed.url;
    await closed.close();
    const refused = createAccountingClient(apiKeyConfig(url, { maxAttempts: 3 }), { clock });
    const error = await refused
      .create('IssuedInvoices.create', { body: { Items: [{ TextItem: { Text: 'x' } }] } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError); // never reached the service: retried, then reported as such
    expect((error as ConnectionError).code).toBe('ECONNREFUSED');
    expect(refused.stats().requests).toBe(3);
    await refused.close();
  });

  it('ends a request at its deadline with TimeoutError, and a side effect with OutcomeUnknownError', async () => {
    server.route('GET', `/v1/Banks/${ID}`, { hang: true });
    server.route('POST', slipPath, { hang: true });
    const client = createAccountingClient(
      apiKeyConfig(server.url, { requestTimeoutMs: 150, maxAttempts: 2 }),
      {
        clock: createManualClock({ autoAdvance: true }),
      },
    );
    const error = await client.get('Banks', ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server.hits('GET', `/v1/Banks/${ID}`)).toHaveLength(2);
    const post = await client
      .create('ReceivedOrders.transferToIssueSlip', { params: { id: ID } })
      .catch((e: unknown) => e);
    expect(post).toBeInstanceOf(OutcomeUnknownError);
    expect((post as OutcomeUnknownError).cause).toBeInstanceOf(TimeoutError);
    expect(server.hits('POST', slipPath)).toHaveLength(1);
    await client.close();
  });

  it('stops when the caller aborts', async () => {
    server.route('GET', `/v1/Banks/${ID}`, { hang: true });
    const client = createAccountingClient(apiKeyConfig(server.url));
    const controller = new AbortController();
    const pending = client.get('Banks', ID, controller.signal);
    await vi.waitFor(() => expect(server.requests).toHaveLength(1), SERVER_WAIT);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await client.close();
  });

  it('parses Retry-After values', () => {
    const now = new Date('2026-03-01T10:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5_000);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
    expect(parseRetryAfter('Sun, 01 Mar 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
