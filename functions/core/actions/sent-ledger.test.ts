/** The sent ledger: one claim wins, a settled sending is never claimed again, a known-unsent one is. */
import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '#functions/adapters/local/memory-checkpoint-store.js';
import { claimSending, type SentKey, settleSending } from './sent-ledger.js';

const key: SentKey = { connection: 'acme', kind: 'einvoice', key: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c03' };
const now = new Date('2026-11-27T10:00:00Z');

describe('the sent ledger', () => {
  it('gives go to exactly one of many concurrent claims; the others find it requested', async () => {
    const state = createMemoryCheckpointStore();
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => claimSending(state, key, `e${i}`, now)),
    );
    expect(claims.filter((c) => c === 'go')).toHaveLength(1);
    expect(claims.filter((c) => c === 'requested')).toHaveLength(7);
  });

  it('a sent sending is a duplicate for ever; a known-unsent one may be claimed again', async () => {
    const state = createMemoryCheckpointStore();
    expect(await claimSending(state, key, 'e1', now)).toBe('go');
    await settleSending(state, key, 'notSent', now);
    expect(await claimSending(state, key, 'e2', now)).toBe('go');
    await settleSending(state, key, 'sent', now);
    expect(await claimSending(state, key, 'e3', now)).toBe('sent');
    // Another kind or document is its own sending.
    expect(await claimSending(state, { ...key, kind: 'email' }, 'e4', now)).toBe('go');
  });
});
