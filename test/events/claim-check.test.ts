import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import { RecordRefError } from '#functions/core/errors.js';
import {
  eventEntryOverflow,
  eventEntrySize,
  resolveRecord,
  storeClaim,
} from '#functions/core/events/claim-check.js';

describe('claim check', () => {
  it('counts entry size like EventBridge (UTF-8 bytes of source, detail-type, detail, resources, time)', () => {
    const event = {
      source: 'accounting.acme',
      detailType: 'IssuedInvoice.Created' as const,
      detail: { a: 'č' },
    };
    expect(eventEntrySize(event)).toBe(15 + 21 + Buffer.byteLength('{"a":"č"}'));
    expect(eventEntrySize({ ...event, time: new Date(0), resources: ['arn:x'] })).toBe(
      eventEntrySize(event) + 14 + 5,
    );
  });

  it('reports the exact size of an entry over the limit and nothing for one within it, multi-byte text included', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'č', '€', '😀', '"', '\n'), maxLength: 40 });
    fc.assert(
      fc.property(
        text,
        fc.boolean(),
        fc.array(text, { maxLength: 2 }),
        fc.nat(400),
        (s, timed, resources, limit) => {
          const event = {
            source: 'accounting.acme',
            detailType: 'IssuedInvoice.Created' as const,
            detail: { a: s },
            ...(timed ? { time: new Date(0) } : {}),
            resources,
          };
          const size = eventEntrySize(event);
          expect(eventEntryOverflow(event, limit)).toBe(size > limit ? size : undefined);
          expect(eventEntryOverflow(event, size)).toBeUndefined();
          expect(eventEntryOverflow(event, size - 1)).toBe(size);
        },
      ),
    );
  });

  it('stores a record, references it by sha256 and resolves it; idempotent on repeat', async () => {
    const store = createMemoryObjectStore();
    const record = { Id: 'r1', Text: 'x'.repeat(1000) };
    const path = { connection: 'acme', recordType: 'IssuedInvoice', id: 'r1' };
    const ref = await storeClaim(store, path, record, { bucket: 'b' });
    const again = await storeClaim(store, path, record, { bucket: 'b' });
    expect(again).toEqual(ref);
    expect(ref.bucket).toBe('b');
    expect(ref.size).toBe(Buffer.byteLength(JSON.stringify(record)));
    expect(await resolveRecord({ recordRef: ref }, store)).toEqual(record);
    expect(await resolveRecord({ record }, store)).toBe(record);
  });

  it('refuses a missing or altered object', async () => {
    const store = createMemoryObjectStore();
    const ref = await storeClaim(store, { connection: 'c', recordType: 'T', id: '1' }, { Id: '1' });
    await store.put({ key: ref.key, body: '{"Id":"2"}', contentType: 'application/json' });
    await expect(resolveRecord({ recordRef: ref }, store)).rejects.toThrow(RecordRefError);
    await expect(resolveRecord({ recordRef: { ...ref, key: 'nope' } }, store)).rejects.toThrow(/not found/);
  });
});
