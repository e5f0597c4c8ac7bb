/**
 * The Shoptet token read from its secret as it changes (adapters/http/rotating-shoptet-api.ts) and
 * the secret's format (adapters/aws/shoptet-token-secret.ts): read on first use, kept for its TTL,
 * read again after Shoptet refused it (at most once per interval), never in an error.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { readShoptetToken, ShoptetTokenSecretError } from '#functions/adapters/aws/shoptet-token-secret.js';
import { createRotatingShoptetApi } from '#functions/adapters/http/rotating-shoptet-api.js';
import { ShoptetApiError } from '#functions/adapters/http/shoptet-api.js';
import { RetryLaterError } from '#functions/core/actions/errors.js';
import type { ShoptetApi } from '#functions/core/intake/ports.js';

const OLD = 'old-token-0123456789abcdef';
const NEW = 'new-token-0123456789abcdef';

/** A shop that accepts only `accepted` and answers the code of the order asked for. */
function setup(stored: { token: string | undefined }, accepted: { token: string }) {
  let now = 0;
  const reads: number[] = [];
  const used: string[] = [];
  const apiFor = (token: string): ShoptetApi => {
    const answer = async <T>(value: T): Promise<T> => {
      used.push(token);
      if (token !== accepted.token) throw new ShoptetApiError('get order', 401, false);
      return value;
    };
    return {
      getOrder: (code) => answer({ code }),
      listOrders: () => answer({ orders: [], page: 1, pageCount: 0 }),
      listWebhooks: () => answer([]),
      registerWebhooks: () => answer([]),
    };
  };
  const api = createRotatingShoptetApi({
    readToken: async () => {
      reads.push(now);
      return stored.token;
    },
    apiFor,
    now: () => now,
    ttlMs: 300_000,
    minRereadMs: 10_000,
  });
  return { api, reads, used, advance: (ms: number) => (now += ms) };
}

describe('the Shoptet token from its secret', () => {
  it('is read on first use and kept for its TTL', async () => {
    const s = setup({ token: OLD }, { token: OLD });
    await s.api.getOrder('A1');
    s.advance(299_000);
    await s.api.listOrders({ changeTimeFrom: 'x', page: 1 });
    expect(s.reads).toEqual([0]);
    s.advance(1000);
    await s.api.listWebhooks();
    expect(s.reads).toEqual([0, 300_000]);
  });

  it('is read again after Shoptet refused it, at most once per interval, and the rotated one is used', async () => {
    const stored = { token: OLD as string | undefined };
    const accepted = { token: OLD };
    const s = setup(stored, accepted);
    await s.api.getOrder('A1');
    // Rotated in the shop and in the secret: the held token is refused.
    stored.token = NEW;
    accepted.token = NEW;
    s.advance(1000);
    await expect(s.api.getOrder('A2')).rejects.toBeInstanceOf(ShoptetApiError);
    // Too soon to read again: the refused token is tried (and refused) without a read.
    s.advance(5000);
    await expect(s.api.getOrder('A2')).rejects.toBeInstanceOf(ShoptetApiError);
    expect(s.reads).toEqual([0]);
    s.advance(5000);
    expect(await s.api.getOrder('A2')).toEqual({ code: 'A2' });
    expect(s.reads).toEqual([0, 11_000]);
    expect(s.used).toEqual([OLD, OLD, OLD, NEW]);
  });

  it('with no token stored, fails each call for later and fetches nothing; a token stored later is used', async () => {
    const stored = { token: undefined as string | undefined };
    const s = setup(stored, { token: OLD });
    await expect(s.api.getOrder('A1')).rejects.toBeInstanceOf(RetryLaterError);
    expect(s.used).toEqual([]);
    stored.token = OLD;
    s.advance(5000);
    await expect(s.api.getOrder('A1')).rejects.toBeInstanceOf(RetryLaterError);
    expect(s.reads).toEqual([0]);
    s.advance(5000);
    expect(await s.api.getOrder('A1')).toEqual({ code: 'A1' });
    expect(s.reads).toEqual([0, 10_000]);
    expect(s.used).toEqual([OLD]);
  });

  it('is read from JSON {"token"}; {} is no token; a malformed secret is refused without its value', async () => {
    const client = (SecretString: string) =>
      ({ send: async () => ({ SecretString }) }) as unknown as SecretsManagerClient;
    expect(await readShoptetToken(client(JSON.stringify({ token: NEW })), 'shoptet')).toBe(NEW);
    expect(await readShoptetToken(client('{}'), 'shoptet')).toBeUndefined();
    for (const bad of ['not json', JSON.stringify({ token: 'short-secret' }), JSON.stringify(['x'])]) {
      const error = await readShoptetToken(client(bad), 'shoptet').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ShoptetTokenSecretError);
      expect(String((error as Error).message)).not.toContain('short-secret');
    }
  });
});
