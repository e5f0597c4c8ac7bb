/**
 * One run of the client with real-looking credentials, the logger at debug capturing every line:
 * no API key, client id, client secret or token may appear in any log line, in any thrown error
 * (message, JSON, util.inspect with causes) or in the configuration's printed forms.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { createManualClock } from '#functions/shared/clock.js';
import { createLogger } from '#functions/shared/logger.js';
import {
  apiKeyConfig,
  oauthConfig,
  TEST_API_KEY,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
} from '../fakes/accounting-config.js';
import { doc, listReply, problem, startFakeServer, useFakeServer } from '../fakes/accounting-server.js';

const TOKEN_1 = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQtMSJ9.c2lnbmF0dXJlLW9uZQ';
const TOKEN_2 = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQtMiJ9.c2lnbmF0dXJlLXR3bw';
const SECRETS = [TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, TOKEN_1, TOKEN_2];
const ID = '66666666-6666-6666-6666-666666666666';

function leaks(text: string): string[] {
  return SECRETS.filter((s) => text.includes(s));
}

function printed(value: unknown): string {
  const asError = value as Error;
  return [
    String(value),
    asError?.message ?? '',
    asError?.stack ?? '',
    JSON.stringify(value),
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  ].join('\n');
}

describe('no secret leaks', () => {
  const server = useFakeServer();

  it('keeps credentials and tokens out of every log line, error and printed config', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', format: 'json', sink: (l) => lines.push(l) });
    const pretty = createLogger({ level: 'debug', format: 'pretty', sink: (l) => lines.push(l) });
    const thrown: unknown[] = [];
    const attempt = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (error) {
        thrown.push(error);
        logger.error('call failed', { error });
        pretty.error('call failed', { error });
      }
    };

    // OAuth: token, 401 → renewal, 429 retry, 422 that echoes a token, 503 whose text body echoes the secret.
    let n = 0;
    server.route('POST', '/auth/connect/token', () => ({
      body: { access_token: ++n === 1 ? TOKEN_1 : TOKEN_2, expires_in: 3600, token_type: 'Bearer' },
    }));
    server.route('GET', /^\/v1\/Banks\/.+/, (req) =>
      req.headers.authorization === `Bearer ${TOKEN_1}` ? problem(401) : { body: { Id: ID } },
    );
    server.route(
      'GET',
      '/v1/IssuedInvoices',
      problem(429, {}, { 'retry-after': '1' }),
      listReply([doc('a')]),
    );
    server.route('POST', '/v1/IssuedInvoices', (req) =>
      problem(422, { detail: `header was ${req.headers.authorization}`, errors: { Token: [TOKEN_2] } }),
    );
    server.route('POST', '/v1/IssuedOrders', {
      status: 503,
      headers: { 'content-type': 'text/plain' },
      body: `upstream said client_secret=${TEST_CLIENT_SECRET}`,
    });
    server.route('GET', `/v1/IssuedInvoices/${ID}`, { drop: 'before-response' });

    const clock = createManualClock({ autoAdvance: true });
    const oauth = oauthConfig(server.url, { maxAttempts: 2 });
    const client = createAccountingClient(oauth, { clock, logger });
    await attempt(() => client.get('Banks', ID));
    await attempt(async () => {
      for await (const _ of client.listItems('IssuedInvoices')) {
        // read
      }
    });
    await attempt(() =>
      client.create('IssuedInvoices.create', { body: { Note: 'x', Items: [{ TextItem: { Text: 'x' } }] } }),
    );
    await attempt(() =>
      client.create('IssuedOrders.create', {
        body: { BusinessPartnerAddress: {}, Items: [{ TextItem: { Text: 'x' } }] },
      }),
    );
    await attempt(() => client.get('IssuedInvoices', ID));
    logger.debug('config', { config: oauth });
    logger.info('stats', client.stats());
    await client.close();

    // OAuth refused.
    const refusing = await startFakeServer();
    refusing.route('POST', '/auth/connect/token', {
      status: 400,
      body: { error: 'invalid_client', error_description: `bad ${TEST_CLIENT_SECRET}` },
    });
    const refused = createAccountingClient(oauthConfig(refusing.url), { clock, logger });
    await attempt(() => refused.get('Banks', ID));
    await refused.close();
    await refusing.close();

    // API key: a 403 echoing the key, a 404.
    server.route('GET', `/v1/BankAccounts/${ID}`, (req) =>
      problem(403, { detail: `key ${req.headers['api-key']} lacks rights` }),
    );
    server.route('GET', `/v1/CashRegisters/${ID}`, problem(404));
    const keyed = apiKeyConfig(server.url, { maxAttempts: 1 });
    const keyClient = createAccountingClient(keyed, { clock, logger });
    await attempt(() => keyClient.get('BankAccounts', ID));
    await attempt(() => keyClient.get('CashRegisters', ID));
    logger.info('config', { config: keyed, apiKey: TEST_API_KEY, nested: { note: `key=${TEST_API_KEY}` } });
    await keyClient.close();

    // The run did what it should, so the checks below saw real traffic.
    expect(n).toBe(2);
    expect(thrown.map((e) => (e as Error).name)).toEqual([
      'ValidationError',
      'OutcomeUnknownError',
      'ConnectionError',
      'AuthenticationError',
      'ForbiddenError',
      'NotFoundError',
    ]);
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.some((l) => l.includes('accounting token acquired'))).toBe(true);
    expect(lines.some((l) => l.includes('[redacted]'))).toBe(true);

    expect(leaks(lines.join('\n'))).toEqual([]);
    for (const error of thrown) expect(leaks(printed(error))).toEqual([]);
    for (const config of [oauth, keyed]) expect(leaks(printed(config))).toEqual([]);
  });
});
