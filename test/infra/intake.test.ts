/** The order intake on AWS: HTTP API → verify function → FIFO queue (+ DLQ) → import function. */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { buildTestApp, type TestApp } from './support.js';

let t: TestApp;
beforeAll(() => {
  t = buildTestApp({
    intakeThrottleRate: 15,
    intakeThrottleBurst: 30,
    intakeSettings: { INTAKE_ORDER_NUMBER_FIELD: 'Note' },
  });
});

type Resource = { Type: string; Properties: Record<string, unknown> };
const ofType = (type: string): [string, Resource][] =>
  Object.entries(t.statelessTemplate.toJSON().Resources as Record<string, Resource>).filter(
    ([, r]) => r.Type === type,
  );
const fnOf = (part: string) => {
  const hit = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(`OrderIntake${part}`));
  if (!hit) throw new Error(`no function ${part}`);
  return hit;
};
const policyOf = (fnId: string) => {
  const role = (fnOf(fnId)[1].Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  const policies = ofType('AWS::IAM::Policy').filter(([, p]) =>
    (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role),
  );
  return JSON.stringify(policies.map(([, p]) => p.Properties.PolicyDocument));
};

describe('order intake stack', () => {
  it('an HTTP API with ANY /intake/{connection}/{source} and ANY /intake/{source} to the verify function, throttled, with access logs', () => {
    t.statelessTemplate.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(routes.sort()).toEqual(['ANY /intake/{connection}/{source}', 'ANY /intake/{source}']);
    t.statelessTemplate.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
    t.statelessTemplate.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 15, ThrottlingBurstLimit: 30 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });

  it('a FIFO queue deduplicating per delivery id, with a FIFO DLQ after 5 receives', () => {
    t.statelessTemplate.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
      SqsManagedSseEnabled: true,
    });
    expect(ofType('AWS::SQS::Queue').filter(([, q]) => q.Properties.FifoQueue === true)).toHaveLength(2);
    t.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnOf('Importer')[0] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
  });

  it('least privilege: the endpoint reads the intake secret, sends to the queue, puts Received/Rejected only', () => {
    const receiver = policyOf('Receiver');
    expect(receiver).toContain('sqs:SendMessage');
    expect(receiver).toContain('secretsmanager:GetSecretValue');
    expect(receiver).toContain('EshopOrder.Received');
    expect(receiver).not.toContain('EshopOrder.Imported');
    expect(receiver).not.toMatch(/dynamodb:/);
    const env = fnOf('Receiver')[1].Properties.Environment as { Variables: Record<string, unknown> };
    expect(Object.keys(env.Variables)).toEqual(
      expect.arrayContaining([
        'INTAKE_SECRETS_SECRET',
        'INTAKE_QUEUE_URL',
        'EVENT_BUS_NAME',
        'INTAKE_ORDER_NUMBER_FIELD',
      ]),
    );
    expect(Object.keys(env.Variables)).not.toContain('ACCOUNTING_CREDENTIALS_SECRET');
  });

  it('with the connection registry: the endpoint reads registry entries (and no connection secret), both functions publish as any connection', () => {
    const registry = buildTestApp({ connectionRegistry: true });
    const resources = Object.entries(
      registry.statelessTemplate.toJSON().Resources as Record<string, Resource>,
    );
    const fn = (part: string) => {
      const hit = resources.find(
        ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(`OrderIntake${part}`),
      );
      if (!hit) throw new Error(`no function ${part}`);
      const role = (hit[1].Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      const policy = resources
        .filter(([, p]) => p.Type === 'AWS::IAM::Policy')
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
        .map(([, p]) => p.Properties.PolicyDocument);
      const env = (hit[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      return { policy: JSON.stringify(policy), env };
    };
    const receiver = fn('Receiver');
    expect(receiver.policy).toContain('dynamodb:GetItem');
    expect(receiver.policy).not.toMatch(/dynamodb:(PutItem|Scan|Query|UpdateItem|DeleteItem)/);
    expect(receiver.policy).not.toContain('connections/');
    expect(receiver.env).toHaveProperty('POLLER_CONNECTIONS_TABLE');
    for (const f of [receiver, fn('Importer')]) expect(f.policy).toContain('"accounting.*"');
  });

  it('least privilege: the import uses the idempotency table, the credentials, puts Imported/Rejected only', () => {
    const importer = policyOf('Importer');
    expect(importer).toMatch(/dynamodb:PutItem/);
    expect(importer).toContain('EshopOrder.Imported');
    expect(importer).not.toContain('EshopOrder.Received');
    expect(importer).not.toContain('sqs:SendMessage');
    const env = (fnOf('Importer')[1].Properties.Environment as { Variables: Record<string, string> })
      .Variables;
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining([
        'ACCOUNTING_CREDENTIALS_SECRET',
        'ACTIONS_IDEMPOTENCY_TABLE',
        'EVENT_BUS_NAME',
      ]),
    );
    // The function's own loader accepts what the stack sets (no secret in the environment).
    const plain = Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string'));
    expect(loadIntakeConfig(plain).mapping.orderNumberField).toBe('Note');
  });

  it('claim checks of large orders: the endpoint only puts and the import only gets objects under intake-orders/ (and may tell a missing one)', () => {
    type Statement = { Action: string | string[]; Resource: unknown };
    const s3Statements = (fnId: string) =>
      (JSON.parse(policyOf(fnId)) as { Statement: Statement[] }[])
        .flatMap((d) => d.Statement)
        .filter((st) => [st.Action].flat().some((a) => a.startsWith('s3:')));
    const receiver = s3Statements('Receiver');
    const importer = s3Statements('Importer');
    // The order is a string of known length: one PutObject, never a multipart upload.
    expect(receiver.flatMap((st) => [st.Action].flat())).toEqual(['s3:PutObject']);
    expect(importer.flatMap((st) => [st.Action].flat()).sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    for (const st of [...receiver, ...importer].filter((s) => s.Action !== 's3:ListBucket'))
      expect(JSON.stringify(st.Resource)).toContain('/intake-orders/*');
    // ListBucket without a condition: an expired claim check answers 404, not 403.
    expect(importer.find((s) => s.Action === 's3:ListBucket')).not.toHaveProperty('Condition');
    for (const part of ['Receiver', 'Importer']) {
      const env = fnOf(part)[1].Properties.Environment as { Variables: Record<string, unknown> };
      expect(Object.keys(env.Variables)).toContain('CLAIM_CHECK_BUCKET');
    }
  });

  it('IAM evaluation: only the endpoint writes, and only the import reads, claim-checked orders', async () => {
    const claims = 'arn:aws:s3:::claim-check-bucket';
    /** CloudFormation tokens → ARNs: the claim-check bucket's by name, anything else a foreign one. */
    const resolve = (value: unknown): unknown => {
      if (typeof value === 'string' || value === null || typeof value !== 'object') return value;
      if (Array.isArray(value)) return value.map(resolve);
      const v = value as Record<string, unknown>;
      if ('Fn::Join' in v) {
        const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
        return parts.map(resolve).join(sep);
      }
      if ('Fn::ImportValue' in v)
        return String(v['Fn::ImportValue']).includes('ClaimCheckBucket')
          ? claims
          : 'arn:aws:s3:::other-bucket';
      if ('Fn::GetAtt' in v || 'Ref' in v) return 'arn:aws:s3:::other-bucket';
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
    };
    const allowed = async (fn: string, action: string, key: string) => {
      const documents = JSON.parse(policyOf(fn)) as unknown[];
      const result = await runSimulation(
        {
          request: {
            principal: 'arn:aws:iam::111111111111:role/fn',
            action,
            resource: { resource: `${claims}/${key}`, accountId: '111111111111' },
            contextVariables: {},
          },
          identityPolicies: documents.map((d, i) => ({ name: `p${i}`, policy: resolve(d) })),
          serviceControlPolicies: [],
          resourceControlPolicies: [],
        },
        {},
      );
      if (result.resultType === 'error') throw new Error(result.errors.message);
      return result.overallResult;
    };
    const order = 'intake-orders/acme/shopify/0a1b.json';
    expect(await allowed('Receiver', 's3:PutObject', order)).toBe('Allowed');
    expect(await allowed('Receiver', 's3:PutObject', 'records/acme/x.json')).toBe('ImplicitlyDenied');
    expect(await allowed('Receiver', 's3:GetObject', order)).toBe('ImplicitlyDenied');
    expect(await allowed('Importer', 's3:GetObject', order)).toBe('Allowed');
    expect(await allowed('Importer', 's3:GetObject', 'records/acme/x.json')).toBe('ImplicitlyDenied');
    expect(await allowed('Importer', 's3:PutObject', order)).toBe('ImplicitlyDenied');
  });

  it('alarms on the DLQ and the API 5xx (with operationalAlarms also the queue age and both functions), to the alarm topic', () => {
    const intakeAlarms = (resources: Record<string, { Type: string; Properties: Record<string, unknown> }>) =>
      Object.entries(resources).filter(
        ([id, r]) => r.Type === 'AWS::CloudWatch::Alarm' && id.startsWith('OrderIntake'),
      );
    const short = (list: [string, unknown][]) =>
      list.map(([id]) => id.replace(/^OrderIntake/, '').replace(/[0-9A-F]{8}$/, '')).sort();
    const lean = intakeAlarms(t.statelessTemplate.toJSON().Resources);
    expect(short(lean)).toEqual(['Api5xxAlarm', 'DlqAlarm']);
    const operational = intakeAlarms(
      buildTestApp({ operationalAlarms: true }).statelessTemplate.toJSON().Resources,
    );
    expect(short(operational)).toEqual(
      ['Api5xxAlarm', 'DlqAlarm', 'ImporterErrorsAlarm', 'QueueAgeAlarm', 'ReceiverErrorsAlarm'].sort(),
    );
    for (const [, alarm] of [...lean, ...operational]) {
      expect(alarm.Properties.AlarmActions).toHaveLength(1);
    }
  });

  it('is left out with intakeEnabled=false, and refuses secrets or unknown names in intakeSettings', () => {
    const off = buildTestApp({ intakeEnabled: false });
    off.statelessTemplate.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    expect(() => buildTestApp({ intakeSettings: { INTAKE_SHOPIFY_SECRET: 'x' } })).toThrow(
      /INTAKE_SHOPIFY_SECRET/,
    );
  });
});
