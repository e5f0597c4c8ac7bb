/**
 * What the synthesized templates show for each finding of the security review: source in every
 * rule pattern, PutEvents limited by `events:source` and `events:detail-type` on every role, a
 * CloudWatch publish statement on the alarm topic (and the same conditions on its key), DLQs
 * retained under RETAIN, the configured region, the outcome log policy's `aws:SourceArn`,
 * throttle and dropped-event alarms, the derived idempotency expiry, and no http off loopback.
 * No bundling (`aws:cdk:bundling-stacks: []`), so these stay fast.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '#functions/shared/config.js';
import { idempotencyExpirySeconds } from '#infra/config/replay-horizon.js';
import { buildTestApp, CDK_JSON_CONTEXT, TEST_BASE_URL, testInfraConfig } from '../infra/support.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

// Every opt-in that adds resources the tests below look at: the topic's key, every alarm.
const armed = buildTestApp({
  customerManagedKey: true,
  operationalAlarms: true,
  actions: {
    ACTIONS_EINVOICE_PARTNERS: '12345678',
    ACTIONS_EMAIL_PARTNERS: '55555555',
    ACTIONS_TRANSFER_ISSUED_OFFER_TO_RECEIVED_ORDER: 'true',
  },
});
const stateless = armed.statelessTemplate.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(stateless).filter(([, r]) => r.Type === type);
const SOURCE = 'accounting.default';
// Offline synths of the whole app in child processes: about 5 s each on a quiet machine,
// several times that on a busy one.
const SYNTH_TIMEOUT_MS = 180_000;

/** `infra/app.ts` as `cdk synth` runs it (the CLI says us-east-1), without bundling, with `env` added. */
function synthApp(outdir: string, env: Record<string, string>) {
  return spawnSync(
    process.execPath,
    [join('node_modules', 'tsx', 'dist', 'cli.mjs'), join('infra', 'app.ts')],
    {
      env: {
        PATH: process.env.PATH,
        CDK_OUTDIR: outdir,
        CDK_DEFAULT_REGION: 'us-east-1',
        CDK_CONTEXT_JSON: JSON.stringify({ ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] }),
        CDK_VALIDATION: 'false',
        ...env,
      },
      encoding: 'utf8',
    },
  );
}

describe('template: who may put what on the bus', () => {
  it('every rule matches the deployment source as well as the detail-type', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules.length).toBeGreaterThanOrEqual(8);
    for (const [id, rule] of rules) {
      const pattern = rule.Properties.EventPattern as Record<string, unknown>;
      if (id.startsWith('BankStatementsRule') || id.startsWith('EventLogRule')) continue;
      expect(pattern.source, id).toEqual([SOURCE]);
      expect(Array.isArray(pattern['detail-type']), id).toBe(true);
    }
    // The event log's rule takes every detail-type of the deployment's source, and only writes them
    // to its log group: it starts no action.
    const log = rules.filter(([id]) => id.startsWith('EventLogRule'));
    expect(log).toHaveLength(1);
    expect(log[0]![1].Properties.EventPattern).toEqual({ source: [SOURCE] });
    const targets = log[0]![1].Properties.Targets as { Arn: unknown }[];
    expect(targets).toHaveLength(1);
    expect(JSON.stringify(targets[0]?.Arn)).toMatch(/:log-group:.*EventLogLogGroup/);
    // The one rule on an AWS service's events: S3's Object Created of the archive bucket, under the
    // statements' prefix only (bank statements dropped into S3, docs/payments.md).
    const statements = rules.filter(([id]) => id.startsWith('BankStatementsRule'));
    expect(statements).toHaveLength(1);
    const pattern = statements[0]![1].Properties.EventPattern as {
      source: unknown;
      'detail-type': unknown;
      detail: { bucket: { name: unknown[] }; object: { key: unknown } };
    };
    expect(pattern.source).toEqual(['aws.s3']);
    expect(pattern['detail-type']).toEqual(['Object Created']);
    expect(pattern.detail.bucket.name).toHaveLength(1);
    expect(JSON.stringify(pattern.detail.bucket.name)).toContain('ArchiveBucket');
    expect(pattern.detail.object.key).toEqual([{ prefix: 'bank-statements/' }]);
  });

  it('claim-checked events match the transfer and send rules', () => {
    const rules = ofType('AWS::Events::Rule').filter(([id]) => /transfer|send/.test(id));
    expect(rules.filter(([id]) => /send/.test(id)).length).toBeGreaterThan(0);
    let filtered = 0;
    for (const [id, rule] of rules) {
      const detail = (rule.Properties.EventPattern as { detail?: { $or: unknown[] } }).detail;
      // A rule without a content filter matches every event of its detail-types, claim-checked ones too.
      if (detail === undefined) continue;
      filtered += 1;
      expect(detail.$or, id).toContainEqual({ recordRef: { key: [{ exists: true }] } });
    }
    expect(filtered).toBeGreaterThan(0);
  });

  it('every PutEvents statement of every role carries events:source and events:detail-type', () => {
    const statements = ofType('AWS::IAM::Policy').flatMap(([id, p]) =>
      ((p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement ?? [])
        .filter((s) => [s.Action].flat().includes('events:PutEvents'))
        .map((s) => [id, s] as const),
    );
    expect(statements.length).toBeGreaterThanOrEqual(8);
    for (const [id, s] of statements) {
      // Multi-valued keys: every entry of a request must match (ForAllValues), and a request
      // without them is refused (Null guard), so a forged source stays denied.
      const conditions = s.Condition as Record<string, Record<string, unknown>>;
      expect(conditions.Null, id).toEqual({ 'events:source': 'false', 'events:detail-type': 'false' });
      expect(conditions['ForAllValues:StringEquals']?.['events:source'], id).toEqual([SOURCE]);
      const types =
        conditions['ForAllValues:StringEquals']?.['events:detail-type'] ??
        conditions['ForAllValues:StringLike']?.['events:detail-type'];
      expect(types, id).toBeDefined();
      expect(JSON.stringify(types)).not.toContain('"*"');
      expect(
        Object.keys(conditions).filter((k) => /^String/.test(k)),
        id,
      ).toEqual([]);
    }
    // The sending's two routes (a new invoice; an update of one the pre-flight blocked).
    const sendTypes = statements
      .filter(([id]) => id.includes('sendeinvoice'))
      .map(
        ([, s]) =>
          (s.Condition as Record<string, Record<string, unknown>>)['ForAllValues:StringEquals']![
            'events:detail-type'
          ],
      );
    const outcomes = [
      'IssuedInvoice.EmailSent',
      'IssuedInvoice.SendingHeld',
      'IssuedInvoice.EInvoiceBlocked',
      'Action.Failed',
    ];
    expect(sendTypes).toEqual([outcomes, outcomes]);
  });
});

describe('template: alarms reach their topic', () => {
  const topicId = ofType('AWS::SNS::Topic')[0]![0];

  it('the topic policy lets CloudWatch publish for this account and its alarms only', () => {
    armed.statelessTemplate.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: topicId },
            Condition: {
              StringEquals: { 'aws:SourceAccount': '111111111111' },
              ArnLike: { 'aws:SourceArn': Match.stringLikeRegexp(':alarm:accounting-events-prod-\\*$') },
            },
          }),
        ]),
      },
    });
  });

  it('the key statement for CloudWatch has the same conditions; every alarm is named under that prefix', () => {
    armed.statelessTemplate.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': '111111111111' },
              ArnLike: { 'aws:SourceArn': Match.stringLikeRegexp(':alarm:accounting-events-prod-\\*$') },
            },
          }),
        ]),
      },
    });
    for (const [id, alarm] of ofType('AWS::CloudWatch::Alarm')) {
      expect(String(alarm.Properties.AlarmName), id).toMatch(/^accounting-events-prod-/);
    }
  });

  it('the poller and the tracker have throttle and AsyncEventsDropped alarms', () => {
    const metrics = ofType('AWS::CloudWatch::Alarm').map(([id, a]) => `${a.Properties.MetricName}@${id}`);
    for (const who of ['PollerThrottlesAlarm', 'Scheduledtrackeinvoices']) {
      expect(
        metrics.some((m) => m.startsWith('Throttles@') && m.includes(who.replace('ThrottlesAlarm', ''))),
      ).toBe(true);
      expect(
        metrics.some(
          (m) => m.startsWith('AsyncEventsDropped@') && m.includes(who.replace('ThrottlesAlarm', '')),
        ),
      ).toBe(true);
    }
  });
});

describe('template: retention, region, policies', () => {
  it('dead-letter queues are retained under RETAIN and deleted under DESTROY', () => {
    const dlqs = ofType('AWS::SQS::Queue').filter(([id]) => /Dlq/.test(id));
    expect(dlqs.length).toBeGreaterThanOrEqual(5);
    for (const [id, q] of dlqs) expect(q.DeletionPolicy, id).toBe('Retain');
    const dev = buildTestApp({ stage: 'dev', removalPolicy: 'DESTROY' });
    const devQueues = Object.entries(
      dev.statelessTemplate.toJSON().Resources as Record<string, Resource>,
    ).filter(([id, r]) => r.Type === 'AWS::SQS::Queue' && /Dlq/.test(id));
    for (const [id, q] of devQueues) expect(q.DeletionPolicy, id).toBe('Delete');
  });

  it('the HTTP deliveries dead-letter queue is retained under RETAIN and deleted under DESTROY', () => {
    const deliveries = 'https://hooks.example.com/n8n';
    for (const [removalPolicy, expected] of [
      ['RETAIN', 'Retain'],
      ['DESTROY', 'Delete'],
    ] as const) {
      const app = buildTestApp({ stage: 'dev', removalPolicy, deliveries });
      const queues = Object.entries(
        app.statelessTemplate.toJSON().Resources as Record<string, Resource>,
      ).filter(([id, r]) => r.Type === 'AWS::SQS::Queue' && /Deliver/i.test(id) && /Dlq/.test(id));
      expect(queues, removalPolicy).toHaveLength(1);
      for (const [id, q] of queues) expect(q.DeletionPolicy, `${removalPolicy} ${id}`).toBe(expected);
    }
  });

  it(
    'offline synth of the app targets the configured region even when the CLI says us-east-1',
    () => {
      const outdir = mkdtempSync(join(tmpdir(), 'security-synth-'));
      try {
        for (const [region, expected] of [
          [undefined, 'eu-central-1'],
          ['eu-west-1', 'eu-west-1'],
        ] as const) {
          const run = synthApp(outdir, {
            ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL: TEST_BASE_URL,
            ...(region ? { ACCOUNTING_EVENTS_REGION: region } : {}),
          });
          expect(run.status, run.stderr).toBe(0);
          const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
            artifacts: Record<string, { type: string; environment?: string }>;
          };
          const stacks = Object.values(manifest.artifacts).filter(
            (a) => a.type === 'aws:cloudformation:stack',
          );
          expect(stacks.map((a) => a.environment)).toEqual(
            stacks.map(() => `aws://unknown-account/${expected}`),
          );
        }
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'offline synth of the sk default without accountingBaseUrl fails, naming the setting, and writes no assembly',
    () => {
      const outdir = mkdtempSync(join(tmpdir(), 'security-synth-'));
      try {
        const run = synthApp(outdir, {});
        expect(run.status).not.toBe(0);
        expect(run.stderr).toContain(
          "accountingBaseUrl (context 'accountingBaseUrl' or ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL): expected the service base URL",
        );
        expect(existsSync(join(outdir, 'manifest.json'))).toBe(false);
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  it('the outcome log group admits only its rules (aws:SourceArn) from this account', () => {
    const policy = ofType('AWS::Logs::ResourcePolicy')[0]![1];
    const text = JSON.stringify(policy.Properties.PolicyDocument);
    // One CreateLogStream statement for the account, one PutLogEvents statement per rule: the
    // outcomes, the failures and the connections' Connection.Unhealthy.
    expect(text.match(/aws:SourceAccount/g)).toHaveLength(4);
    for (const rule of ['ActionOutcomesRule', 'ActionFailedRule', 'ConnectionsUnhealthyRule']) {
      expect(text).toMatch(new RegExp(`ArnEquals.{0,40}aws:SourceArn.{0,40}${rule}[0-9A-F]+`));
    }
  });

  it('idempotency records outlive the longest replay: derived, and a shorter setting is refused', () => {
    const expires = Object.values(stateless)
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map(
        (f) =>
          (f.Properties.Environment as { Variables: Record<string, string> }).Variables
            .ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS,
      )
      .filter((v) => v !== undefined);
    expect(expires.length).toBeGreaterThanOrEqual(6);
    expect(new Set(expires)).toEqual(new Set([String(31 * 86_400)]));
    expect(idempotencyExpirySeconds(testInfraConfig({ eventArchiveRetentionDays: 7 }))).toBe(19 * 86_400);
    expect(() => testInfraConfig({ actions: { ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS: '604800' } })).toThrow(
      ConfigError,
    );
  });

  it('http base and auth URLs are refused off loopback', () => {
    for (const key of ['accountingBaseUrl', 'accountingAuthUrl'] as const) {
      expect(() => testInfraConfig({ [key]: 'http://api.example.com' })).toThrow(/https/);
      expect(testInfraConfig({ [key]: 'http://127.0.0.1:4010' })[key]).toBe('http://127.0.0.1:4010');
      expect(testInfraConfig({ [key]: 'https://api.example.com' })[key]).toBe('https://api.example.com');
    }
  });

  it('Object Lock covers the legal period: years after the end of the document year, leap days included', () => {
    armed.statefulTemplate.hasResourceProperties('AWS::S3::Bucket', {
      // GOVERNANCE unless COMPLIANCE is chosen (docs/deploy.md): the period is the same.
      ObjectLockConfiguration: { Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 4018 } } },
    });
  });
});
