/**
 * HTTP deliveries on AWS: by default a queue, DLQ and secret per target and the signing delivery
 * function with least-privilege grants; as an option API destinations behind one connection.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '#functions/shared/config.js';
import { buildTestApp, nagFindings, testInfraConfig } from './support.js';

const DELIVERIES = 'https://hooks.example.com/n8n,IssuedInvoice.*;https://example.org/all';

describe('deliveries (API destinations)', () => {
  const t = buildTestApp({ deliveries: DELIVERIES, deliveryVia: 'api-destination' });
  const template = t.statelessTemplate;

  it('per target a connection with its own API key secret, and a destination', () => {
    template.resourceCountIs('AWS::Events::Connection', 2);
    template.hasResourceProperties('AWS::Events::Connection', {
      AuthorizationType: 'API_KEY',
      AuthParameters: { ApiKeyAuthParameters: { ApiKeyName: 'x-accounting-events-key' } },
    });
    template.resourceCountIs('AWS::Events::ApiDestination', 2);
    template.hasResourceProperties('AWS::Events::ApiDestination', {
      InvocationEndpoint: 'https://hooks.example.com/n8n',
      HttpMethod: 'POST',
    });
  });

  it('a rule per target with its pattern, our source, retries and the DLQ', () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule')).filter((r) =>
      JSON.stringify(r).includes('ApiDestination'),
    ) as { Properties: { EventPattern: Record<string, unknown>; Targets: Record<string, unknown>[] } }[];
    expect(rules).toHaveLength(2);
    const patterns = rules.map((r) => r.Properties.EventPattern);
    expect(patterns).toContainEqual({
      source: ['accounting.default'],
      'detail-type': [{ prefix: 'IssuedInvoice.' }],
    });
    expect(patterns).toContainEqual({ source: ['accounting.default'] });
    for (const rule of rules) {
      expect(rule.Properties.Targets[0]).toMatchObject({
        RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 86400 },
        DeadLetterConfig: { Arn: expect.anything() },
      });
    }
  });

  it('alarms on the DLQ and on failed invocations of each rule', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) =>
      JSON.stringify(a),
    );
    expect(alarms.filter((a) => a.includes('HTTP deliveries: events EventBridge gave up on'))).toHaveLength(
      1,
    );
    expect(alarms.filter((a) => a.includes('FailedInvocations'))).toHaveLength(2);
  });

  it('has zero unacknowledged cdk-nag findings', () => {
    expect(nagFindings(t.app)).toEqual({ errors: [], warnings: [] });
  });

  it('no deliveries configured: no connection', () => {
    buildTestApp().statelessTemplate.resourceCountIs('AWS::Events::Connection', 0);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: template JSON, read field by field
type TemplateJson = any;
type Resource = { Type: string; DeletionPolicy?: string; Properties: Record<string, TemplateJson> };

describe('deliveries (signed delivery function, the default)', () => {
  const targets = JSON.stringify([
    'https://hooks.example.com/n8n,IssuedInvoice.*',
    { url: 'https://example.org/acme', connections: ['acme'], name: 'acme-only' },
  ]);
  const t = buildTestApp({ deliveries: targets, connectionRegistry: true });
  const template = t.statelessTemplate;
  const resources = (type: string) => Object.entries(template.findResources(type)) as [string, Resource][];
  const deliveryFunction = () => {
    const found = resources('AWS::Lambda::Function').filter(([id]) => id.startsWith('DeliveriesFunction'));
    expect(found).toHaveLength(1);
    return found[0] as [string, Resource];
  };

  it('no API destination; a generated secret, a queue and a retained DLQ per target', () => {
    template.resourceCountIs('AWS::Events::ApiDestination', 0);
    template.resourceCountIs('AWS::Events::Connection', 0);
    const secrets = resources('AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('Deliveries'));
    expect(secrets).toHaveLength(2);
    for (const [, secret] of secrets) {
      expect(secret.Properties.GenerateSecretString).toMatchObject({
        ExcludePunctuation: true,
        PasswordLength: 48,
      });
    }
    const queues = resources('AWS::SQS::Queue').filter(([id]) => id.startsWith('Deliveries'));
    expect(queues.filter(([id]) => id.includes('Dlq'))).toHaveLength(2);
    const sources = queues.filter(([id]) => id.includes('Queue'));
    expect(sources).toHaveLength(2);
    for (const [, q] of sources) expect(q.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    const dlqs = Object.entries(template.toJSON().Resources as Record<string, Resource>).filter(
      ([id, r]) => id.startsWith('Deliveries') && id.includes('Dlq') && r.Type === 'AWS::SQS::Queue',
    );
    for (const [, r] of dlqs) expect(r.DeletionPolicy).toBe('Retain');
  });

  it("each rule's source and detail.connection list only its target's connections (every connection's when none is given)", () => {
    const patterns = resources('AWS::Events::Rule')
      .filter(([id]) => id.startsWith('Deliveries'))
      .map(([, r]) => r.Properties.EventPattern);
    expect(patterns).toContainEqual({
      source: [{ prefix: 'accounting.' }],
      'detail-type': [{ prefix: 'IssuedInvoice.' }],
    });
    expect(patterns).toContainEqual({ source: ['accounting.acme'], detail: { connection: ['acme'] } });
  });

  it("the function reads only the targets' secrets, consumes and delays only their queues, sends only to their DLQs", () => {
    const [fnId, fn] = deliveryFunction();
    expect(fn.Properties.Environment.Variables.DELIVERY_MAX_ATTEMPTS).toBe('5');
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    const statements = resources('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId))
      .flatMap(
        ([, p]) =>
          p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      );
    // Each resource a statement with `action` names (CDK may merge statements).
    const byAction = (action: string) =>
      statements
        .filter((s) => [s.Action].flat().includes(action))
        .flatMap((s) => [s.Resource].flat())
        .map((r) => JSON.stringify(r));
    expect(byAction('secretsmanager:GetSecretValue')).toHaveLength(2);
    for (const r of byAction('secretsmanager:GetSecretValue')) expect(r).toMatch(/Deliveries.*Secret/);
    expect(byAction('sqs:ChangeMessageVisibility')).toHaveLength(2);
    for (const r of byAction('sqs:ChangeMessageVisibility')) expect(r).toMatch(/Deliveries.*Queue/);
    expect(byAction('sqs:SendMessage')).toHaveLength(2);
    for (const r of byAction('sqs:SendMessage')) expect(r).toMatch(/Deliveries.*Dlq/);
    expect(byAction('events:PutEvents')).toEqual([]);
    const mappings = resources('AWS::Lambda::EventSourceMapping').filter(([, m]) =>
      JSON.stringify(m.Properties.FunctionName).includes(fnId),
    );
    expect(mappings).toHaveLength(2);
    for (const [, m] of mappings) {
      expect(m.Properties).toMatchObject({
        BatchSize: 5,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
  });

  it('alarms on each DLQ, each queue age and the function errors', () => {
    const alarms = resources('AWS::CloudWatch::Alarm').map(([, a]) => String(a.Properties.AlarmDescription));
    expect(alarms.filter((a) => /^HTTP delivery .*dead-letter queue/.test(a))).toHaveLength(2);
    expect(alarms.filter((a) => /^HTTP delivery .*oldest undelivered/.test(a))).toHaveLength(2);
    expect(alarms.filter((a) => a.startsWith('The delivery function failed'))).toHaveLength(1);
  });

  it('has zero unacknowledged cdk-nag findings', () => {
    expect(nagFindings(t.app)).toEqual({ errors: [], warnings: [] });
  });
});

describe('deliveries settings', () => {
  it('a bad target is a configuration error naming it', () => {
    expect(() => testInfraConfig({ deliveries: 'ftp://x;https://ok.example.com,not a pattern' })).toThrow(
      ConfigError,
    );
    expect(() => testInfraConfig({ deliveries: 'ftp://x' })).toThrow(/deliveries.*"ftp:\/\/x"/s);
    expect(() => testInfraConfig({ deliveries: 'https://ok.example.com,IssuedInvoice.Craeted' })).toThrow(
      /deliveries.*got "IssuedInvoice.Craeted"/s,
    );
  });

  it('https to public hosts; loopback only with deliveryPrivateTargets; link-local and metadata hosts never', () => {
    expect(() => testInfraConfig({ deliveries: 'http://hooks.example.com/x' })).toThrow(
      /deliveries.*expected https:\/\//s,
    );
    expect(() => testInfraConfig({ deliveries: 'http://127.0.0.1:8080/x' })).toThrow(/a loopback address/);
    expect(
      testInfraConfig({ deliveries: 'http://127.0.0.1:8080/x', deliveryPrivateTargets: true }).deliveries,
    ).toHaveLength(1);
    for (const url of [
      'https://169.254.169.254/latest',
      'https://[fd00:ec2::254]/',
      'https://metadata.google.internal/',
      'https://[fe80::1]/',
    ]) {
      expect(() => testInfraConfig({ deliveries: url }), url).toThrow(/cannot be a delivery target/);
    }
  });

  it("connections must be names, and with one connection include the deployment's", () => {
    expect(() =>
      testInfraConfig({
        deliveries: JSON.stringify([{ url: 'https://x.example.com', connections: ['a b'] }]),
      }),
    ).toThrow(/deliveries/);
    expect(() =>
      testInfraConfig({
        deliveries: JSON.stringify([{ url: 'https://x.example.com', connections: ['other'] }]),
      }),
    ).toThrow(/deliveries.*0\.connections.*'default'/s);
    expect(
      testInfraConfig({
        deliveries: JSON.stringify([{ url: 'https://x.example.com', connections: ['default'] }]),
      }).deliveries,
    ).toHaveLength(1);
  });
});
