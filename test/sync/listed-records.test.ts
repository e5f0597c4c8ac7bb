import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { checkpointKey } from '#functions/core/sync/checkpoint-state.js';
import { setup } from './harness.js';

const KEY = checkpointKey('acme', 'ReceivedOrders');

describe('pollCollection: the listed records', () => {
  it('publishes each record with every field as listed', async () => {
    const t = setup();
    const id = t.service.create({
      fields: { Note: 'č€😀', Lines: [{ Amount: 1.5, Tags: ['a'] }], Empty: null },
    });
    const info = t.service.records.get(id)!.record.ModificationInfo!;
    t.service.records.get(id)!.record.ModificationInfo = { ...info, CreatedBy: 'u1', ModifiedBy: 'u2' };
    await t.poll();
    expect(t.publisher.details().map((d) => d.record)).toEqual([t.service.records.get(id)!.record]);
  });

  it.each([
    ['ModificationInfo.ModifiedDate', { ModificationInfo: { ModifiedDate: 'yesterday' } }],
    [
      'ModificationInfo.CreatedDate',
      { ModificationInfo: { CreatedDate: 'soon', ModifiedDate: '2026-05-01T08:00:00Z' } },
    ],
    ['ModificationInfo', { ModificationInfo: null }],
    ['Id', { Id: '' }],
  ])(
    'fails the collection on a record whose %s is wrong: nothing published, no checkpoint',
    async (field, fields) => {
      const t = setup();
      for (let i = 0; i < 3; i++) t.service.create();
      const bad = t.service.create();
      const stored = t.service.records.get(bad)!;
      stored.record = { ...stored.record, ...fields } as unknown as ApiRecord;
      const result = await t.poll();
      expect(result.status).toBe('failed');
      expect(result.error?.name).toBe('SyncDataError');
      expect(result.error?.message).toContain(`missing ${field} `);
      expect(t.publisher.events).toEqual([]);
      expect(await t.checkpoints.get(KEY)).toBeUndefined();
    },
  );
});
