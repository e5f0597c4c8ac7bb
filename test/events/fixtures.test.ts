import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseDetail } from '#functions/core/event-catalog.js';
import { idempotencyKey } from '#functions/core/events/envelope.js';
import {
  type EventBridgeEnvelope,
  eventFixture,
  recordEventFixture,
  scheduledPoll,
  sqsActionBatch,
} from '../support/event-fixtures.js';

/** A record event parses with the catalog and carries the idempotency key of its version. */
function expectRecordEvent(event: EventBridgeEnvelope<Record<string, unknown>>) {
  expect(() => parseDetail(event['detail-type'], event.detail)).not.toThrow();
  const { connection, recordType, id, modifiedDate, change } = event.detail;
  expect(event['detail-type']).toBe(`${recordType}.${change}`);
  expect(event.detail.idempotencyKey).toBe(
    idempotencyKey(String(connection), String(recordType), String(id), String(modifiedDate)),
  );
}

describe('event fixtures', () => {
  it('the EventBridge record event parses with the catalog', () => {
    const event = recordEventFixture();
    expect(event).toMatchObject({ version: '0', source: 'accounting.acme', resources: [] });
    expectRecordEvent(event);
  });

  it('the SQS batch carries record events with their MD5, as a queue delivers them', () => {
    const { Records } = sqsActionBatch();
    expect(Records.length).toBeGreaterThan(1);
    expect(new Set(Records.map((r) => r.messageId)).size).toBe(Records.length);
    for (const record of Records) {
      expect(record).toMatchObject({ eventSource: 'aws:sqs', awsRegion: 'eu-central-1' });
      expect(record.md5OfBody).toBe(createHash('md5').update(record.body).digest('hex'));
      expectRecordEvent(JSON.parse(record.body));
    }
    expect(JSON.parse(Records[0]?.body ?? '')).toEqual(recordEventFixture());
  });

  it("the poller payloads are a Scheduler notification and a shard's schedule input", () => {
    expect(scheduledPoll()).toMatchObject({ source: 'aws.scheduler', 'detail-type': 'Scheduled Event' });
    expect(eventFixture('shard-poll.json')).toEqual({
      shard: 1,
      shards: 4,
      scheduledTime: '2026-05-01T08:00:00Z',
    });
  });
});
