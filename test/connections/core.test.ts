import { describe, expect, it } from 'vitest';
import { ConnectionEntryError, parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { decideTake, fullBucket, refill } from '#functions/core/connections/token-bucket.js';
import { parseDetail } from '#functions/core/event-catalog.js';
import { connectionEvents } from '#functions/core/events/connection-events.js';

describe('connection entry', () => {
  it('fills defaults and strips a trailing slash', () => {
    const entry = parseConnectionEntry({
      name: 'acme',
      baseUrl: 'https://api.example.com/',
      credentialsSecret: 'env:ACME_CREDENTIALS',
    });
    expect(entry).toMatchObject({
      name: 'acme',
      variant: 'sk',
      baseUrl: 'https://api.example.com',
      pollIntervalSeconds: 60,
      paused: false,
      actions: {},
      rateLimit: { requestsPerSecond: 5, burst: 10 },
    });
  });

  it('names the entry and every bad setting, never a value', () => {
    let error: unknown;
    try {
      parseConnectionEntry({
        name: 'acme',
        variant: 'cz',
        baseUrl: 'http://api.example.com',
        credentialsSecret: 'not a ref with spaces',
        collections: ['IssuedInvoices', 'IssuedCreditNotes'],
        pollIntervalSeconds: 5,
        extra: true,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConnectionEntryError);
    const message = (error as Error).message;
    expect(message).toMatch(/^connection 'acme': /);
    for (const field of ['baseUrl', 'credentialsSecret', 'collections.1', 'pollIntervalSeconds', 'extra']) {
      expect(message).toContain(field);
    }
    expect(message).not.toContain('not a ref with spaces');
  });

  it('asks for a base URL on the sk variant only', () => {
    expect(() => parseConnectionEntry({ name: 'a', credentialsSecret: 'env:A_CREDENTIALS' })).toThrow(
      /baseUrl/,
    );
    expect(
      parseConnectionEntry({ name: 'a', variant: 'cz', credentialsSecret: 'env:A_CREDENTIALS' }).baseUrl,
    ).toBeUndefined();
  });
});

describe('token bucket', () => {
  const limit = { requestsPerSecond: 2, burst: 3 };

  it('takes up to the burst, then waits for the refill', () => {
    let state = fullBucket(limit, 0);
    for (let i = 0; i < 3; i += 1) {
      const d = decideTake(state, limit, 0);
      expect(d.kind).toBe('take');
      if (d.kind === 'take') state = d.next;
    }
    expect(decideTake(state, limit, 0)).toMatchObject({ kind: 'wait', waitMs: 500 });
    expect(decideTake(state, limit, 500).kind).toBe('take');
  });

  it('never refills past the burst and honours a pause', () => {
    expect(refill({ tokens: 0, updatedMs: 0, pausedUntilMs: 0 }, limit, 60_000).tokens).toBe(3);
    const paused = { ...fullBucket(limit, 0), pausedUntilMs: 10_000 };
    expect(decideTake(paused, limit, 4_000)).toMatchObject({ kind: 'wait', waitMs: 6_000 });
    expect(decideTake(paused, limit, 10_000).kind).toBe('take');
  });
});

describe('connection events', () => {
  it('parse their examples', () => {
    for (const entry of connectionEvents)
      expect(() => parseDetail(entry.detailType, entry.example)).not.toThrow();
  });
});
