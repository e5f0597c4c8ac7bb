/**
 * Secrets never appear in a log line, an event, an error (message, stack, cause chain, JSON,
 * inspection) or CLI output, under every failure path driven here against the sandbox and small
 * local servers: 401, 403, timeout, malformed token responses, configuration errors. And replaced
 * credentials are picked up: after an authentication failure the client reads them again once and
 * repeats the request once (API key and OAuth).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { loadAccountingConfig, parseAccountingConfig } from '#functions/accounting/config.js';
import { createSecretsManagerSource } from '#functions/adapters/aws/secrets-manager-source.js';
import { sendInvoiceAction } from '#functions/core/actions/send-invoice/action.js';

import { createManualClock } from '#functions/shared/clock.js';
import { createLogger } from '#functions/shared/logger.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { registryOfOneEntry } from '../actions/registry-of-one.js';
import { recordEvent, recordingPublisher } from '../actions/support.js';
import { cli } from '../local/cli-harness.js';

const secret = (what: string) => `${what}-${randomUUID()}`;
let sandbox: Sandbox;
let tokenServer: Server;
let tokenUrl: string;
let tried = 0;
let secretsSeen = 0;
const captured: string[] = [];
const logger = createLogger({ level: 'debug', sink: (line) => captured.push(line) });

/** Bodies the fake token server answers with, by path. */
const tokenAnswers: Record<string, { status: number; body: string }> = {
  '/notjson/connect/token': { status: 200, body: '<html>gateway</html>' },
  '/wrongtype/connect/token': { status: 200, body: '{"access_token":5,"expires_in":"soon"}' },
  '/echo/connect/token': { status: 400, body: '' }, // filled per request: echoes the form it got
};

beforeAll(async () => {
  sandbox = await startSandbox({ sizes: { documents: 10, partners: 3, perCollection: {} } });
  tokenServer = createServer((req, res) => {
    let form = '';
    req.on('data', (c) => {
      form += c;
    });
    req.on('end', () => {
      const answer = tokenAnswers[req.url ?? ''] ?? { status: 404, body: '' };
      const body =
        req.url === '/echo/connect/token'
          ? JSON.stringify({ error: 'invalid_client', error_description: form })
          : answer.body;
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  console.info(`security: secret failure paths tried ${tried}, secrets seen ${secretsSeen}`);
  await sandbox.close();
  await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
});

/** Everything an error can show: message, stack, JSON, inspection, down the cause chain. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e !== undefined && depth < 8; depth++) {
    parts.push(String(e), inspect(e, { depth: 6, showHidden: true }), JSON.stringify(e) ?? '');
    if (e instanceof Error) parts.push(e.stack ?? '');
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join('\n');
}

function expectNoSecret(text: string, secrets: readonly string[]) {
  tried++;
  for (const s of secrets) {
    const found = text.split(s).length - 1;
    secretsSeen += found;
    expect(found, `a secret was seen`).toBe(0);
  }
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('secrets under failure', () => {
  it('401: a wrong API key and a wrong client secret', async () => {
    const apiKey = secret('key');
    const clientSecret = secret('client-secret');
    const byKey = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey, maxAttempts: 1 }),
      { logger },
    );
    const byOAuth = createAccountingClient(
      parseAccountingConfig({
        baseUrl: sandbox.baseUrl,
        authUrl: sandbox.authUrl,
        clientId: sandbox.credentials.clientId,
        clientSecret,
        maxAttempts: 1,
      }),
      { logger },
    );
    for (const client of [byKey, byOAuth]) {
      const error = await failure(() => client.get('IssuedInvoices', randomUUID()));
      expectNoSecret(`${errorText(error)}\n${captured.join('\n')}\n${JSON.stringify(client.stats())}`, [
        apiKey,
        clientSecret,
      ]);
      await client.close();
    }
  });

  it('403: a read-only key asking for a side effect', async () => {
    const readOnly = sandbox.credentials.readOnlyApiKey;
    const client = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: readOnly, maxAttempts: 1 }),
      { logger },
    );
    const [invoice] = await (async () => {
      for await (const page of client.listPages('IssuedInvoices')) return page.items;
      return [];
    })();
    const error = await failure(() =>
      client.call('Documents.sendEmail', {
        params: { collection: 'IssuedInvoices', id: String(invoice?.Id) },
        body: { To: ['a@b.c'] },
      }),
    );
    expect((error as { status?: number }).status).toBe(403);
    expectNoSecret(`${errorText(error)}\n${captured.join('\n')}`, [readOnly]);
    await client.close();
  });

  it('timeout: the deadline passes while the service is slow', async () => {
    const apiKey = sandbox.credentials.apiKey;
    sandbox.setFaults({ latency: { baseMs: 1_000, jitterMs: 0, distribution: 'uniform' } });
    try {
      const client = createAccountingClient(
        parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey, maxAttempts: 1, requestTimeoutMs: 100 }),
        { logger },
      );
      const error = await failure(() => client.get('IssuedInvoices', randomUUID()));
      expect((error as Error).name).toBe('TimeoutError');
      expectNoSecret(`${errorText(error)}\n${captured.join('\n')}`, [apiKey]);
      await client.close();
    } finally {
      sandbox.setFaults({ latency: { baseMs: 0, jitterMs: 0, distribution: 'uniform' } });
    }
  });

  it('malformed token responses, and a token server that echoes the form', async () => {
    for (const prefix of ['/notjson', '/wrongtype', '/echo']) {
      const clientSecret = secret('client-secret');
      const clientId = secret('client-id');
      const client = createAccountingClient(
        parseAccountingConfig({
          baseUrl: sandbox.baseUrl,
          authUrl: `${tokenUrl}${prefix}`,
          clientId,
          clientSecret,
          maxAttempts: 1,
        }),
        { logger },
      );
      const error = await failure(() => client.get('IssuedInvoices', randomUUID()));
      expectNoSecret(`${errorText(error)}\n${captured.join('\n')}`, [clientSecret]);
      await client.close();
    }
  });

  it('configuration errors name settings, never values', async () => {
    const apiKey = secret('key');
    const clientSecret = secret('client-secret');
    const envs = [
      { ACCOUNTING_BASE_URL: `https://user:${apiKey}@api.example.com`, ACCOUNTING_API_KEY: apiKey },
      { ACCOUNTING_BASE_URL: `https://api.example.com/?key=${apiKey}`, ACCOUNTING_API_KEY: apiKey },
      {
        ACCOUNTING_BASE_URL: 'http://api.example.com',
        ACCOUNTING_CLIENT_ID: apiKey,
        ACCOUNTING_CLIENT_SECRET: clientSecret,
      },
      {
        ACCOUNTING_BASE_URL: 'https://api.example.com',
        ACCOUNTING_CLIENT_SECRET: clientSecret,
        ACCOUNTING_PAGE_SIZE: apiKey,
      },
    ];
    const dir = mkdtempSync(join(tmpdir(), 'security-cli-'));
    try {
      for (const env of envs) {
        const error = await failure(async () => loadAccountingConfig(env));
        expectNoSecret(errorText(error), [apiKey, clientSecret]);
        const run = await cli(['sync', '--once', '--no-sandbox', '--json', '--data-dir', join(dir, 'data')], {
          env,
          cwd: dir,
        });
        expect(run.code).toBe(2);
        expectNoSecret(`${run.stdout}\n${run.stderr}`, [apiKey, clientSecret]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an action under a refused key: nothing published carries the key, nor does its error', async () => {
    const apiKey = secret('key');
    const api = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey, maxAttempts: 1 }),
      { logger },
    );
    const publisher = recordingPublisher();
    // On the one per-connection path, the deployment's registry of one.
    const entry = registryOfOneEntry(
      sendInvoiceAction,
      { ACTIONS_EMAIL_PARTNERS: '12345678' },
      () => ({
        api,
        publisher,
        clock: createManualClock(),
        logger,
        idempotency: { run: async (_key, fn) => fn() },
        actionState: undefined as never,
      }),
      logger,
    );
    const invoice = {
      Id: randomUUID(),
      ModificationInfo: { CreatedDate: '2026-03-01T08:00:00Z', ModifiedDate: '2026-03-01T08:00:00Z' },
    };
    const error = await failure(() => entry(recordEvent('IssuedInvoice', invoice)));
    expectNoSecret(`${errorText(error)}\n${JSON.stringify(publisher.events)}\n${captured.join('\n')}`, [
      apiKey,
    ]);
    await api.close();
  });

  it('CLI against the service with a refused key: exit 1, the key nowhere in its output', async () => {
    const apiKey = secret('key');
    const dir = mkdtempSync(join(tmpdir(), 'security-cli-'));
    try {
      const run = await cli(
        [
          'sync',
          '--once',
          '--json',
          '--base-url',
          sandbox.baseUrl,
          '--data-dir',
          join(dir, 'data'),
          '--collections',
          'IssuedInvoices',
        ],
        {
          env: { ACCOUNTING_API_KEY: apiKey, ACCOUNTING_MAX_ATTEMPTS: '1' },
          cwd: dir,
        },
      );
      expect(run.code).not.toBe(0);
      expectNoSecret(`${run.stdout}\n${run.stderr}`, [apiKey]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('replaced credentials are picked up after an authentication failure', () => {
  it('API key: one re-read, one repeat, then it works', async () => {
    const before = sandbox.requestCounts().total;
    let reads = 0;
    const client = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: secret('old-key'), maxAttempts: 1 }),
      {
        logger,
        reloadCredentials: async () => {
          reads++;
          return parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey })
            .credentials;
        },
      },
    );
    const page = await (async () => {
      for await (const p of client.listPages('IssuedInvoices')) return p;
    })();
    expect(page?.items.length).toBeGreaterThan(0);
    expect(reads).toBe(1);
    expect(client.stats().credentialReloads).toBe(1);
    expect(sandbox.requestCounts().total - before).toBe(2); // the refused request and its one repeat
    await client.close();
  });

  it('OAuth: a refused client secret is read again once; still wrong means one repeat only', async () => {
    const ok = createAccountingClient(
      parseAccountingConfig({
        baseUrl: sandbox.baseUrl,
        authUrl: sandbox.authUrl,
        clientId: sandbox.credentials.clientId,
        clientSecret: secret('old'),
        maxAttempts: 1,
      }),
      {
        logger,
        reloadCredentials: async () =>
          parseAccountingConfig({
            baseUrl: sandbox.baseUrl,
            authUrl: sandbox.authUrl,
            clientId: sandbox.credentials.clientId,
            clientSecret: sandbox.credentials.clientSecret,
          }).credentials,
      },
    );
    await expect(ok.listPages('IssuedInvoices')[Symbol.asyncIterator]().next()).resolves.toMatchObject({
      done: false,
    });
    expect(ok.stats()).toMatchObject({ credentialReloads: 1, tokenRequests: 2 });
    await ok.close();

    let reads = 0;
    const stillWrong = secret('still-wrong');
    const bad = createAccountingClient(
      parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: secret('old-key'), maxAttempts: 1 }),
      {
        logger,
        reloadCredentials: async () => {
          reads++;
          return parseAccountingConfig({ baseUrl: sandbox.baseUrl, apiKey: stillWrong }).credentials;
        },
      },
    );
    const before = sandbox.requestCounts().total;
    const error = await failure(() => bad.get('IssuedInvoices', randomUUID()));
    expect((error as { status?: number }).status).toBe(401);
    expect(reads).toBe(1);
    expect(sandbox.requestCounts().total - before).toBe(2);
    expectNoSecret(errorText(error), [stillWrong]);
    await bad.close();
  });

  it('the Secrets Manager source reads the secret again past its cache on refresh', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: JSON.stringify({ apiKey: 'first' }) })
      .resolves({ SecretString: JSON.stringify({ apiKey: 'second' }) });
    const source = createSecretsManagerSource({
      client: new SecretsManagerClient({ region: 'eu-central-1' }),
      secretId: 'creds',
      ttlMs: 300_000,
      clock: createManualClock(),
    });
    expect(await source.get()).toEqual({ ACCOUNTING_API_KEY: 'first' });
    expect(await source.get()).toEqual({ ACCOUNTING_API_KEY: 'first' });
    expect(await source.refresh?.()).toEqual({ ACCOUNTING_API_KEY: 'second' });
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    sm.restore();
  });
});
