/**
 * Shoptet on the intake (`intakeShoptet`): the API token in its own secret read by the import
 * only, the sweep on a schedule of the import function, and Shoptet's 3 requests in flight per
 * token kept across containers (the queue's MaximumConcurrency × 1 per container + one sweep).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SHOPTET_MAX_IN_FLIGHT } from '#functions/adapters/http/shoptet-api.js';
import { SHOPTET_IN_FLIGHT_PER_CONTAINER } from '#functions/handlers/shoptet-on-aws.js';
import { buildTestApp, nagFindings, type TestApp } from './support.js';

type Resource = { Type: string; Properties: Record<string, unknown> };
const ofType = (t: TestApp, type: string): [string, Resource][] =>
  Object.entries(t.statelessTemplate.toJSON().Resources as Record<string, Resource>).filter(
    ([, r]) => r.Type === type,
  );
const fnOf = (t: TestApp, part: string): [string, Resource] => {
  const hit = ofType(t, 'AWS::Lambda::Function').find(([id]) => id.startsWith(`OrderIntake${part}`));
  if (!hit) throw new Error(`no function ${part}`);
  return hit;
};
const envOf = (t: TestApp, part: string) =>
  ((fnOf(t, part)[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables ??
    {}) as Record<string, unknown>;
const policyOf = (t: TestApp, part: string) => {
  const role = (fnOf(t, part)[1].Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return JSON.stringify(
    ofType(t, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
      .map(([, p]) => p.Properties.PolicyDocument),
  );
};
const tokenSecretId = (t: TestApp) => {
  const hit = ofType(t, 'AWS::SecretsManager::Secret').find(([id]) =>
    id.startsWith('OrderIntakeShoptetToken'),
  );
  if (!hit) throw new Error('no token secret');
  return hit;
};

let t: TestApp;
beforeAll(() => {
  t = buildTestApp({ intakeShoptet: true, intakeSettings: { INTAKE_SHOPTET_SWEEP_SECONDS: '300' } });
});

describe('Shoptet on the intake', () => {
  it('keeps the API token in a secret of its own, created empty, read by the import and not by the endpoint', () => {
    const [id, secret] = tokenSecretId(t);
    expect(secret.Properties.GenerateSecretString).toBeUndefined();
    expect(secret.Properties.SecretString).toBe('{}');
    expect(envOf(t, 'Importer').INTAKE_SHOPTET_TOKEN_SECRET).toEqual({ Ref: id });
    expect(policyOf(t, 'Importer')).toContain(id);
    expect(policyOf(t, 'Receiver')).not.toContain(id);
    expect(envOf(t, 'Receiver').INTAKE_SHOPTET_TOKEN_SECRET).toBeUndefined();
    // No token travels in any function's environment.
    for (const [, fn] of ofType(t, 'AWS::Lambda::Function')) {
      const vars = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      expect(Object.keys(vars ?? {})).not.toContain('INTAKE_SHOPTET_TOKEN');
      expect(Object.keys(vars ?? {})).not.toContain('INTAKE_SHOPTET_SIGNATURE_KEY');
    }
  });

  it('invokes the import function for the sweep on a schedule, with no retry, and lets it queue notices', () => {
    const schedules = ofType(t, 'AWS::Scheduler::Schedule').filter(([id]) => id.startsWith('OrderIntake'));
    expect(schedules).toHaveLength(1);
    const [, schedule] = schedules[0] as [string, Resource];
    expect(schedule.Properties.ScheduleExpression).toBe('rate(5 minutes)');
    const target = schedule.Properties.Target as { Arn: unknown; Input: string; RetryPolicy: unknown };
    expect(JSON.stringify(target.Arn)).toContain(fnOf(t, 'Importer')[0]);
    expect(JSON.parse(target.Input)).toEqual({
      shoptetSweep: { scheduledTime: '<aws.scheduler.scheduled-time>' },
    });
    expect(target.RetryPolicy).toMatchObject({ MaximumRetryAttempts: 0 });
    const invokeConfig = ofType(t, 'AWS::Lambda::EventInvokeConfig').find(([id]) =>
      id.startsWith('OrderIntakeImporter'),
    );
    expect(invokeConfig?.[1].Properties.MaximumRetryAttempts).toBe(0);
    expect(envOf(t, 'Importer').INTAKE_QUEUE_URL).toBeDefined();
    expect(policyOf(t, 'Importer')).toContain('sqs:SendMessage');
  });

  it('keeps at most 3 Shoptet requests in flight per token across containers', () => {
    const importer = fnOf(t, 'Importer')[0];
    const mapping = ofType(t, 'AWS::Lambda::EventSourceMapping').find(([, m]) =>
      JSON.stringify(m.Properties.FunctionName).includes(importer),
    );
    if (!mapping) throw new Error('no event source of the import function');
    const imports = (mapping[1].Properties.ScalingConfig as { MaximumConcurrency: number })
      .MaximumConcurrency;
    expect(imports).toBe(2);
    // The imports the queue runs at once, and one sweep, each with its containers' share.
    expect((imports + 1) * SHOPTET_IN_FLIGHT_PER_CONTAINER).toBeLessThanOrEqual(SHOPTET_MAX_IN_FLIGHT);
  });

  it('has no sweep schedule with INTAKE_SHOPTET_SWEEP_SECONDS=0, and nothing of Shoptet without intakeShoptet', () => {
    const noSweep = buildTestApp({
      intakeShoptet: true,
      intakeSettings: { INTAKE_SHOPTET_SWEEP_SECONDS: '0' },
    });
    expect(
      ofType(noSweep, 'AWS::Scheduler::Schedule').filter(([id]) => id.startsWith('OrderIntake')),
    ).toEqual([]);
    expect(envOf(noSweep, 'Importer').INTAKE_QUEUE_URL).toBeUndefined();
    expect(tokenSecretId(noSweep)).toBeDefined();
    const off = buildTestApp({});
    expect(
      ofType(off, 'AWS::SecretsManager::Secret').some(([id]) => id.startsWith('OrderIntakeShoptet')),
    ).toBe(false);
    expect(ofType(off, 'AWS::Scheduler::Schedule').some(([id]) => id.startsWith('OrderIntake'))).toBe(false);
    for (const name of [
      'INTAKE_SHOPTET_TOKEN',
      'INTAKE_SHOPTET_SIGNATURE_KEY',
      'INTAKE_SHOPTET_TOKEN_SECRET',
    ]) {
      expect(() => buildTestApp({ intakeSettings: { [name]: 'a'.repeat(32) } }), name).toThrow(
        new RegExp(name),
      );
    }
  });

  it('is cdk-nag clean, with one connection and with the connection registry', () => {
    expect(nagFindings(t.app)).toEqual({ errors: [], warnings: [] });
    const registry = buildTestApp({ intakeShoptet: true, connectionRegistry: true });
    expect(nagFindings(registry.app)).toEqual({ errors: [], warnings: [] });
    expect(envOf(registry, 'Importer').INTAKE_SHOPTET_TOKEN_SECRET).toBeDefined();
  });
});
