/** Signature checks, property-based: a correct signature passes; any change to the body, the secret or the signature fails. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SignatureError, signHeaders, verifySignature } from '#functions/core/intake/signatures.js';

const secret = fc.string({ minLength: 16, maxLength: 64 }).filter((s) => s.trim().length >= 16);
const body = fc.string({ minLength: 1, maxLength: 2000 });
const standardSecret = fc
  .uint8Array({ minLength: 24, maxLength: 48 })
  .map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);

function flipOneByte(text: string, at: number): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const i = at % bytes.length;
  bytes[i] = (bytes[i] as number) ^ 0x01;
  return bytes;
}

describe('webhook signatures', () => {
  for (const source of ['shopify', 'woocommerce', 'shoptet'] as const) {
    it(`${source}: the HMAC of the exact bytes passes; one flipped bit, another secret or no header fails`, () => {
      fc.assert(
        fc.property(secret, secret, body, fc.nat(), (key, other, text, at) => {
          const headers = signHeaders(source, key, text, { deliveryId: 'd', now: new Date() });
          verifySignature(source, key, Buffer.from(text, 'utf8'), headers);
          expect(() => verifySignature(source, key, flipOneByte(text, at), headers)).toThrow(SignatureError);
          if (other !== key) {
            expect(() => verifySignature(source, other, Buffer.from(text, 'utf8'), headers)).toThrow(
              SignatureError,
            );
          }
          expect(() => verifySignature(source, key, Buffer.from(text, 'utf8'), {})).toThrow(SignatureError);
        }),
        { numRuns: 200 },
      );
    });
  }

  it('generic (Standard Webhooks): passes inside 5 minutes, fails when stale, tampered or re-addressed', () => {
    fc.assert(
      fc.property(
        standardSecret,
        body,
        fc.nat(),
        fc.integer({ min: -280, max: 280 }),
        (key, text, at, skew) => {
          const now = new Date(Date.now() + skew * 1000);
          const headers = signHeaders('generic', key, text, { deliveryId: 'msg_1', now });
          verifySignature('generic', key, Buffer.from(text, 'utf8'), headers);
          expect(() => verifySignature('generic', key, flipOneByte(text, at), headers)).toThrow(
            SignatureError,
          );
          // The id is signed too: the same signature under another webhook-id fails.
          expect(() =>
            verifySignature('generic', key, Buffer.from(text, 'utf8'), { ...headers, 'webhook-id': 'msg_2' }),
          ).toThrow(SignatureError);
          const stale = signHeaders('generic', key, text, {
            deliveryId: 'msg_1',
            now: new Date(Date.now() - 301_000),
          });
          try {
            verifySignature('generic', key, Buffer.from(text, 'utf8'), stale);
            expect.unreachable('a stale timestamp passed');
          } catch (error) {
            expect(error).toBeInstanceOf(SignatureError);
            expect((error as SignatureError).reason).toBe('stale');
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
