/**
 * Findings 4, 5 and 11 against the intake's own code: signing secrets that rotate, replays beyond
 * the horizon, the topic header, and keys too short to sign with. Each reproduction must have no
 * effect: nothing queued, no order created.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import type { AccountingApi } from '#functions/accounting/api.js';
import { IntakeSecretFormatError, readSigningSecrets } from '#functions/adapters/aws/intake-secrets.js';
import { importOrder } from '#functions/core/intake/import-order.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import type { IntakeQueue } from '#functions/core/intake/ports.js';
import { type ReceiveDeps, receiveWebhook } from '#functions/core/intake/receive-webhook.js';
import type { ReferenceCache } from '#functions/core/intake/references.js';
import { createRotatingSecrets, type SigningSecretValues } from '#functions/core/intake/rotating-secrets.js';
import { type IntakeMessage, shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { hmacBase64 } from '#functions/core/intake/signatures.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { createManualClock } from '#functions/shared/clock.js';
import { ConfigError } from '#functions/shared/config.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';
import { intakeOfOne } from '../intake/one-connection.js';

const OLD = 'old-leaked-shopify-secret-0001';
const NEW = 'new-shopify-secret-after-rotation-0002';
const GRACE_SECONDS = 900;

function endpoint(store: { values: SigningSecretValues; reads: number }) {
  const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z' });
  const queued: unknown[] = [];
  const queue: IntakeQueue = { send: async (m) => void queued.push(m) };
  const config = loadIntakeConfig({ INTAKE_SHOPIFY_SECRET: store.values.shopify });
  const deps: ReceiveDeps = {
    config,
    connections: intakeOfOne(config.connection),
    queue,
    publisher: recordingPublisher(),
    clock,
    logger: recordingLogger(),
    signingSecrets: createRotatingSecrets({
      read: async () => {
        store.reads++;
        return { ...store.values };
      },
      clock,
      initial: { ...store.values },
      ttlMs: 300_000,
      graceMs: GRACE_SECONDS * 1000,
      minRereadMs: 10_000,
    }),
  };
  let n = 0;
  const post = (secret: string, headers: Record<string, string> = { 'x-shopify-topic': 'orders/create' }) => {
    const body = JSON.stringify(sampleOrder('shopify', ++n, clock.now()));
    return receiveWebhook(deps, {
      method: 'POST',
      source: 'shopify',
      headers: {
        'content-type': 'application/json',
        'x-shopify-hmac-sha256': hmacBase64(secret, body),
        'x-shopify-webhook-id': `d-${n}`,
        ...headers,
      },
      body: Buffer.from(body),
    });
  };
  return { clock, queued, post };
}

describe('finding 4: intake signing secrets rotate without a cold start', () => {
  it('the new secret is accepted at once, the old one only for its grace window, then refused', async () => {
    const store = { values: { shopify: OLD } as SigningSecretValues, reads: 0 };
    const { clock, queued, post } = endpoint(store);
    expect((await post(OLD)).status).toBe(202);
    store.values = { shopify: NEW };
    clock.advance(11_000); // the last read is older than the re-read interval
    // Before: 401 until a cold start. Now the mismatch reads the secret again.
    expect((await post(NEW)).status).toBe(202);
    expect(store.reads).toBe(1);
    expect((await post(OLD)).status).toBe(202); // within the grace window
    clock.advance((GRACE_SECONDS + 1) * 1000);
    const before = queued.length;
    const refused = await post(OLD);
    expect(refused.status).toBe(401);
    expect(queued.length).toBe(before);
    expect((await post(NEW)).status).toBe(202);
  });

  it('a flood of bad signatures reads the secret at most once per interval', async () => {
    const store = { values: { shopify: NEW } as SigningSecretValues, reads: 0 };
    const { queued, post } = endpoint(store);
    for (let i = 0; i < 50; i++) expect((await post(`forged-secret-${i}-padding`)).status).toBe(401);
    expect(store.reads).toBe(0); // the cold-start read is recent: no re-read within 10 s
    expect(queued).toHaveLength(0);
  });
});

describe('finding 5: replays', () => {
  it('a signed Shopify delivery without its topic header is refused, nothing queued', async () => {
    const { queued, post } = endpoint({ values: { shopify: NEW }, reads: 0 });
    expect((await post(NEW, {})).status).toBe(400);
    expect(queued).toHaveLength(0);
  });

  it('an order beyond the replay horizon, or without a date, is not imported again', async () => {
    const clock = createManualClock({ start: '2026-06-01T10:00:00.000Z' });
    const untouched = new Proxy({} as never, {
      get: () => {
        throw new Error('nothing may be touched');
      },
    });
    const horizon = 15 * 86_400;
    const config = loadIntakeConfig({ ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS: String(horizon) });
    expect(config.replayHorizonSeconds).toBe(horizon);
    const deps = {
      api: untouched as AccountingApi,
      guard: untouched,
      attempts: untouched,
      references: untouched as ReferenceCache,
      publisher: recordingPublisher(),
      clock,
      logger: recordingLogger(),
      config,
    };
    const order = shopOrderSchema.parse({
      ...(await import('#functions/core/intake/shopify-order.js')).shopifyToShopOrder(
        (await import('#functions/core/intake/shopify-order.js')).shopifyOrderSchema.parse(
          sampleOrder('shopify', 3, new Date('2026-05-01T10:00:00Z')),
        ),
        { registrationNumber: [], vatNumber: [] },
      ),
    });
    const message = (o: typeof order): IntakeMessage => ({
      version: 1,
      connection: 'acme',
      source: 'shopify',
      deliveryId: 'replayed',
      receivedAt: clock.now().toISOString(),
      order: o,
    });
    // Created 31 days ago, the horizon 15 days: its intake record may be gone.
    await expect(importOrder(deps, message(order))).resolves.toMatchObject({ status: 'skipped' });
    const { createdAt: _, ...undated } = order;
    await expect(importOrder(deps, message(undated))).resolves.toMatchObject({ status: 'skipped' });
    expect(deps.publisher.events).toHaveLength(0);
  });
});

describe('finding 11: signing keys too short are refused', () => {
  const sm = mockClient(SecretsManagerClient);
  afterAll(() => sm.restore());
  const sevenBytes = `whsec_${Buffer.from('7 bytes').toString('base64')}`;

  it('in the settings, naming the variable, never the value', () => {
    const error = (() => {
      try {
        loadIntakeConfig({ INTAKE_GENERIC_SECRET: sevenBytes });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toContain('INTAKE_GENERIC_SECRET');
    expect(error?.message).not.toContain(sevenBytes);
  });

  it('in the Secrets Manager secret, naming the source, never the value', async () => {
    for (const [source, value] of [
      ['generic', sevenBytes],
      ['shopify', 'short'],
    ] as const) {
      sm.reset();
      sm.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ [source]: value }) });
      const error = await readSigningSecrets(new SecretsManagerClient({ region: 'eu-central-1' }), 's').catch(
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(IntakeSecretFormatError);
      expect((error as Error).message).toContain(source);
      expect((error as Error).message).not.toContain(value);
    }
  });
});
