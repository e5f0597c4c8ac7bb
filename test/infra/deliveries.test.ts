/** HTTP deliveries on AWS: API destinations behind one connection, a DLQ, alarms; cdk-nag clean. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../functions/shared/config.js';
import { defaultInfraConfig } from '../../infra/config/load.js';
import { buildTestApp, nagFindings } from './support.js';

const DELIVERIES = 'https://hooks.example.com/n8n,IssuedInvoice.*;https://example.org/all';

describe('deliveries (API destinations)', () => {
  const t = buildTestApp({ deliveries: DELIVERIES });
  const template = t.statelessTemplate;

  it('one connection with an API key header from a generated secret, one destination per target', () => {
    template.resourceCountIs('AWS::Events::Connection', 1);
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

  it('a bad target is a configuration error naming it', () => {
    expect(() => defaultInfraConfig({ deliveries: 'ftp://x;https://ok.example.com,not a pattern' })).toThrow(
      ConfigError,
    );
    expect(() => defaultInfraConfig({ deliveries: 'ftp://x' })).toThrow(/deliveries.*"ftp:\/\/x"/s);
    expect(() => defaultInfraConfig({ deliveries: 'https://ok.example.com,IssuedInvoice.Craeted' })).toThrow(
      /deliveries.*got "IssuedInvoice.Craeted"/s,
    );
  });
});
