/**
 * The deployment's failure paths, run from its cloud assembly with one fault injected at a time:
 * a rule's target down (EventBridge retries by the target's retry policy, then dead-letters the
 * event through the dead-letter queue's policy), a schedule's target down (Scheduler retries,
 * then dead-letters the tick with its execution role), a function whose AWS calls stall past its
 * time (each invocation hands the record back as a failed batch item before its timeout, SQS
 * redrives it to the dead-letter queue) and a poison message (redriven to the route's dead-letter
 * queue while the rest are handled).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from './assembly.js';
import { type Deployment, deploy } from './deployment.js';
import { findingsAfterTest, type OutOfFlow, overGrants, unusedAfterFile } from './proof-of-use.js';

let d: Deployment;

/**
 * The function this file runs out of time: a 4 s timeout in the template and its AWS calls stalled
 * 2 s. The SQS handler keeps 3 s of an invocation to return its batch report (`REPORT_MARGIN_MS`),
 * so each record has about 1 s: it is stopped and reported as a failed batch item well before the
 * Lambda timeout (a timeout would lose the whole report).
 */
const TIMED_OUT = 'RoutetransferreceivedorderFunction';

/** What this file's flows do not run, and why. */
const OUT_OF_FLOW: OutOfFlow = {
  Routeliquidatepayments: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  Routeliquidateshoppayment: "a shop's orders/paid through the intake is run in one-connection.test.ts",
  BankStatements: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  OrderIntake: 'the intake is run in one-connection.test.ts',
  ActionFailedRule:
    'an invalid event is dead-lettered, not failed; Action.Failed (a liquidation whose outcome is unknown) is run in one-connection.test.ts',
  ConnectionsUnhealthyRule: 'the connection stays healthy in this file (registry.test.ts: a refused one)',
};

beforeAll(async () => {
  d = await deploy({
    sandbox: { sizes: { documents: 12, partners: 4, perCollection: {} } },
    config: {},
    alter: (a) => {
      const fn = a.byType('AWS::Lambda::Function').find((f) => f.logicalId.startsWith(TIMED_OUT));
      if (!fn) throw new Error(`no ${TIMED_OUT}`);
      a.props(fn).Timeout = 4;
    },
  });
  const secret = d.assembly
    .byType('AWS::SecretsManager::Secret')
    .find((r) => r.logicalId.startsWith('CredentialsSecret'));
  if (!secret) throw new Error('no credentials secret');
  d.standIn.secretStore.put(secret.ref, JSON.stringify({ apiKey: d.sandbox.credentials.apiKey }));
}, 300_000);

afterEach(() => {
  if (d) expect(findingsAfterTest(d)).toBe('');
});

afterAll(async () => {
  const unused = d ? [unusedAfterFile(d, OUT_OF_FLOW), await overGrants(d)].filter(Boolean).join('\n') : '';
  await d?.close();
  expect(unused).toBe('');
});

const queueOf = (prefix: string) => {
  const q = d.queues.all().find((x) => x.logicalId.startsWith(prefix));
  if (!q) throw new Error(`no queue ${prefix}`);
  return q;
};
const arnOf = (prefix: string) => {
  const r = d.assembly.resources.find((x) => x.logicalId.startsWith(prefix));
  if (!r) throw new Error(`no resource ${prefix}`);
  return r.attributes.Arn as string;
};

describe('failure paths, deployed', () => {
  it("a rule's target down: retried by its retry policy, then in its dead-letter queue through that queue's policy", async () => {
    const target = arnOf('RoutearchiveisdocQueue');
    d.standIn.faults.down.add(target);
    d.standIn.faults.stall.set(d.fn(TIMED_OUT).logicalId, 2_000);
    const started = d.clock.now();
    try {
      await d.tick();
    } finally {
      d.standIn.faults.down.delete(target);
    }
    const matched =
      d.usage.ruleMatches.get(
        d.assembly.resources.find((r) => r.logicalId.startsWith('RoutearchiveisdocRule'))?.logicalId ?? '',
      ) ?? 0;
    expect(matched).toBeGreaterThan(0);
    const dlq = queueOf('RoutearchiveisdocDlq');
    expect(dlq.messages).toHaveLength(matched);
    expect(new Set(dlq.messages.map((m) => (JSON.parse(m.body) as Json)['detail-type']))).toEqual(
      new Set(
        ['IssuedInvoice.Created', 'IssuedAdvanceInvoice.Created'].filter((t) =>
          dlq.messages.some((m) => m.body.includes(t)),
        ),
      ),
    );
    // The retry policy's age bound (a day) or its 185 retries, whichever ends first, passed.
    expect(d.clock.now() - started).toBeGreaterThan(60 * 60_000);
    expect(queueOf('RoutearchiveisdocQueue').messages).toHaveLength(0);
    dlq.messages.splice(0);
    // Back up: the next change reaches it and is archived.
    const invoice = d.sandbox.state.list('IssuedInvoices', { pageSize: 1, pageNumber: 1 }).items[0];
    if (!invoice) throw new Error('no invoice');
    d.sandbox.state.update('IssuedInvoices', String(invoice.Id), (r) => {
      r.Note = 'changed after the target came back';
    });
    await d.tick();
    expect(d.invocations.some((i) => i.fn.startsWith('RoutearchiveisdocFunction') && i.result.ok)).toBe(true);
  }, 240_000);

  it('a function whose AWS calls stall past its time: each invocation reports the record as a failed batch item before its timeout, and SQS redrives it to the dead-letter queue', async () => {
    const fn = d.fn(TIMED_OUT);
    const runs = d.invocations.filter((i) => i.fn === fn.logicalId);
    expect(runs.length).toBeGreaterThan(0);
    // Never killed by the timeout: every invocation returned its report, the record in it.
    expect(runs.filter((i) => !i.result.ok).map((i) => i.result.error?.name)).toEqual([]);
    const handedBack = runs.flatMap((i) =>
      (
        (i.result.result as { batchItemFailures?: { itemIdentifier: string }[] } | undefined)
          ?.batchItemFailures ?? []
      ).map((f) => f.itemIdentifier),
    );
    expect(handedBack.length).toBe(runs.length);
    expect(d.lambda.output(fn)).toContain('"message":"action will be retried"');
    expect(d.lambda.output(fn)).toContain('"reason":"the invocation ends before this record could finish"');
    const dlq = queueOf('RoutetransferreceivedorderDlq');
    expect(dlq.messages.map((m) => m.messageId).sort()).toEqual([...new Set(handedBack)].sort());
    expect(queueOf('RoutetransferreceivedorderQueue').messages).toHaveLength(0);
    d.standIn.faults.stall.clear();
    dlq.messages.splice(0);
  }, 120_000);

  it("a poison message ends in the route's dead-letter queue, and its queue is left empty", async () => {
    const queue = queueOf('RoutetransferissueslipQueue');
    const poison = d.queues.send(queue, '{"not":"an event"');
    await d.settle();
    const dlq = queueOf('RoutetransferissueslipDlq');
    expect(
      dlq.messages.map((m) => m.body),
      `${dlq.logicalId} holds the poison message ${poison.messageId}`,
    ).toEqual([poison.body]);
    expect(queue.messages).toHaveLength(0);
    expect(d.invocations.some((i) => i.trigger.includes('RoutetransferissueslipFunction'))).toBe(true);
    // A dead letter waits for a person: a day on, it is still there (a short retention loses it, a finding).
    await d.advance(24 * 60 * 60_000);
    expect(
      dlq.messages.map((m) => m.body),
      `${dlq.logicalId} still holds it a day later`,
    ).toEqual([poison.body]);
    dlq.messages.splice(0);
  }, 120_000);

  it("a schedule's target down: Scheduler retries by the schedule's retry policy, then dead-letters the tick with its role", async () => {
    const poller = d.fn('PollerFunction');
    d.standIn.faults.down.add(poller.arn);
    const before = d.invocations.filter((i) => i.fn === poller.logicalId).length;
    try {
      await d.tick();
    } finally {
      d.standIn.faults.down.delete(poller.arn);
    }
    expect(d.invocations.filter((i) => i.fn === poller.logicalId).length).toBe(before);
    const dlq = queueOf('ScheduleDlq');
    expect(dlq.messages.length).toBeGreaterThan(0);
    const schedule = d.assembly.resources.find((r) => r.logicalId.startsWith('PollSchedule'));
    expect(dlq.messages[0]?.body).toBe(String(d.assembly.props(schedule as never).Target.Input ?? '{}'));
    dlq.messages.splice(0);
  }, 120_000);
});
