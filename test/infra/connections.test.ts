/**
 * The templates of a deployment of many connections (`connectionRegistry=true`): the registry and
 * rate-limit tables, one schedule per shard → the poller of that shard, least privilege (the
 * poller reads only the secrets under the connections prefix), the unhealthy alarm, the dashboard's
 * per-connection graphs, and cdk-nag with zero unacknowledged findings.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { findAction } from '#functions/core/actions/registry.js';
import { loadActionFunctionConfig } from '#functions/handlers/action-config.js';
import { loadConnectionPollerConfig } from '#functions/handlers/connections-config.js';
import { ENV } from '#functions/shared/env-names.js';
import { buildTestApp, nagFindings } from './support.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

const t = buildTestApp({ connectionRegistry: true });
const stateless = t.statelessTemplate.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(stateless).filter(([, r]) => r.Type === type);
/** The logical id of `Connections/<path>[/<child>]` (an AppFunction's `Function` or `Role`, or a queue). */
const logicalId = (path: string, child?: string) => {
  const node = t.stateless.node.findChild('Connections').node.findChild(path);
  const target = child ? node.node.findChild(child) : node;
  return t.stateless.resolve(
    (target.node.defaultChild as unknown as { logicalId: string }).logicalId,
  ) as string;
};

/** Every statement of the role of the function at `path` (`Poller`). */
function statementsOf(path: string): { Action: string | string[]; Resource: unknown; Condition?: unknown }[] {
  const roleId = logicalId(path, 'Role');
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: never[] }).Statement);
}
const actionsOf = (path: string) => [...new Set(statementsOf(path).flatMap((s) => [s.Action].flat()))].sort();

describe('many connections: stateful', () => {
  it('a registry table keyed by name and a rate-limit table, on demand, PITR, encrypted, retained', () => {
    t.statefulTemplate.resourceCountIs('AWS::DynamoDB::Table', 5);
    t.statefulTemplate.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [{ AttributeName: 'name', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        // Encrypted at rest with an AWS owned key (`SSEEnabled: false`; `true` means a KMS key).
        SSESpecification: { SSEEnabled: false },
        DeletionProtectionEnabled: true,
        TimeToLiveSpecification: Match.absent(),
      },
      DeletionPolicy: 'Retain',
    });
    t.statefulTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
    expect(buildTestApp().statefulTemplate.toJSON().Outputs).not.toHaveProperty('ConnectionsTableName');
  });
});

describe('many connections: the shards', () => {
  const schedulesOf = (template: { toJSON(): Record<string, unknown> }) =>
    Object.values(template.toJSON().Resources as Record<string, Resource>).filter(
      (r) => r.Type === 'AWS::Scheduler::Schedule',
    );
  const pollerArn = () => ({ 'Fn::GetAtt': [logicalId('Poller', 'Function'), 'Arn'] });

  it('one schedule a minute per shard ticks the poller with its shard and scheduled time', () => {
    const ticks = ofType('AWS::Scheduler::Schedule').filter(([, s]) =>
      JSON.stringify(s.Properties.Target).includes(JSON.stringify(pollerArn())),
    );
    expect(ticks).toHaveLength(1);
    expect(ticks[0]?.[1].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Input: JSON.stringify({ shard: 0, shards: 1, scheduledTime: '<aws.scheduler.scheduled-time>' }),
        RetryPolicy: { MaximumRetryAttempts: 2 },
      },
    });
    // One poller: no single-connection poller beside it, no dispatcher, no poll queue.
    expect(t.stateless.node.tryFindChild('Poller')).toBeUndefined();
    expect(t.stateless.node.findChild('Connections').node.tryFindChild('Dispatcher')).toBeUndefined();
    expect(
      ofType('AWS::Lambda::EventSourceMapping')
        .map(([id]) => id)
        .join(),
    ).not.toMatch(/Poll/);
    expect(
      ofType('AWS::SQS::Queue')
        .map(([id]) => id)
        .join(),
    ).not.toMatch(/PollQueue|PollDlq/);
  });

  it('connectionPollerShards: one schedule per shard, each naming its own', () => {
    const sharded = buildTestApp({ connectionRegistry: true, connectionPollerShards: 3 });
    const inputs = schedulesOf(sharded.statelessTemplate)
      .map((s) => (s.Properties.Target as { Input?: string }).Input ?? '')
      .filter((i) => i.includes('"shards"'))
      .map((i) => JSON.parse(i) as { shard: number; shards: number })
      .sort((x, y) => x.shard - y.shard);
    expect(inputs.map(({ shard, shards }) => [shard, shards])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  });

  it('the single-company deployment runs the same poller on its registry of one', () => {
    expect(t.stateless.poller.handler).toBe('poll-connections');
    expect(buildTestApp().stateless.poller.handler).toBe('poll-connections');
  });
});

describe('many connections: least privilege', () => {
  it('the poller reads only the secrets under <prefix>/connections/, and only their values', () => {
    const secretStatements = statementsOf('Poller').filter((s) =>
      JSON.stringify(s.Action).includes('secretsmanager'),
    );
    expect(secretStatements).toHaveLength(1);
    expect(secretStatements[0]?.Action).toBe('secretsmanager:GetSecretValue');
    expect(JSON.stringify(secretStatements[0]?.Resource)).toContain(
      ':secret:accounting-events-prod/connections/*',
    );
  });

  it('poller: its registry segment (Scan, GetItem), checkpoints and leases, buckets, claim checks, put events of any connection', () => {
    expect(actionsOf('Poller')).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Scan',
        'events:PutEvents',
        // Through SSM, the data keys of sealed credentials only (sealed-credentials.test.ts).
        'kms:Decrypt',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:GetObject',
        's3:ListBucket',
        's3:PutObject',
        'secretsmanager:GetSecretValue',
        'ssm:GetParameters',
      ].sort(),
    );
    const putEvents = statementsOf('Poller').find((s) => s.Action === 'events:PutEvents');
    expect(putEvents?.Condition).toEqual({
      Null: { 'events:source': 'false', 'events:detail-type': 'false' },
      'ForAllValues:StringLike': {
        'events:source': ['accounting.*'],
        'events:detail-type': [
          '*.Created',
          '*.Updated',
          '*.Deleted',
          // Payment detection is on by default.
          '*.Paid',
          '*.PartiallyPaid',
          '*.Overdue',
          'Connection.Unhealthy',
          'Connection.Recovered',
        ],
      },
    });
  });
});

describe('many connections: configuration', () => {
  const envOf = (path: string): Record<string, string> =>
    Object.fromEntries(
      Object.entries(
        (
          stateless[logicalId(path, 'Function')]!.Properties.Environment as {
            Variables: Record<string, unknown>;
          }
        ).Variables,
      ).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : 'https://sqs.eu-central-1.amazonaws.com/1/resolved',
      ]),
    );

  it("the poller's own config loader accepts its environment", () => {
    expect(loadConnectionPollerConfig(envOf('Poller'))).toMatchObject({
      connectionsTable: expect.any(String),
      rateLimitTable: expect.any(String),
      perConnectionMetrics: false,
      adapters: {
        eventBusName: expect.any(String),
        checkpointsTable: expect.any(String),
        // Each connection's secret kept 15 minutes per container.
        credentialsCacheMs: 900_000,
      },
    });
    expect(envOf('Poller')).not.toHaveProperty(ENV.credentialsSecret);
  });
});

describe('many connections: the actions serve every connection', () => {
  const routes = t.stateless.routeResources;
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    t.stateless.resolve((construct.node.defaultChild as { logicalId: string }).logicalId) as string;
  const statementsOfRole = (roleId: string) =>
    ofType('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId))
      .flatMap(
        ([, p]) => (p.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement,
      );

  it("every route matches any connection's source (the accounting. prefix) and its detail-types", () => {
    expect(routes.length).toBeGreaterThanOrEqual(3);
    for (const { rule, route } of routes) {
      const pattern = stateless[idOf(rule)]!.Properties.EventPattern as Record<string, unknown>;
      expect(pattern.source, route.id).toEqual([{ prefix: 'accounting.' }]);
      expect(Array.isArray(pattern['detail-type']), route.id).toBe(true);
    }
    for (const id of ['ActionOutcomesRule', 'ActionFailedRule', 'EventLogRule']) {
      const pattern = stateless[idOf(t.stateless.node.findChild(id))]!.Properties.EventPattern as {
        source: unknown;
      };
      expect(pattern.source, id).toEqual([{ prefix: 'accounting.' }]);
    }
  });

  it("a route function reads the registry, the buckets and the connections' secrets, puts only its outcomes", () => {
    for (const { fn, route } of routes) {
      const statements = statementsOfRole(idOf(fn.role));
      const text = JSON.stringify(statements);
      expect(text, route.id).toContain(':secret:accounting-events-prod/connections/*');
      // Not the deployment's own credentials secret.
      expect(text, route.id).not.toMatch(/CredentialsSecret/);
      const putEvents = statements.filter((s) => s.Action === 'events:PutEvents');
      expect(putEvents, route.id).toHaveLength(1);
      expect(putEvents[0]?.Condition, route.id).toEqual({
        Null: { 'events:source': 'false', 'events:detail-type': 'false' },
        'ForAllValues:StringLike': { 'events:source': ['accounting.*'] },
        'ForAllValues:StringEquals': {
          'events:detail-type': [...new Set([...route.outcomes, 'Action.Failed'])],
        },
      });
      const variables = (
        stateless[idOf(fn.function)]!.Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      const env = Object.fromEntries(
        Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : `https://x.test/${k}`]),
      );
      expect(env, route.id).not.toHaveProperty(ENV.credentialsSecret);
      const uses = findAction(route.handler)?.uses ?? [];
      expect(loadActionFunctionConfig(env, uses).registry, route.id).toEqual({
        connectionsTable: expect.any(String),
        rateLimitTable: expect.any(String),
      });
    }
  });
});

describe('many connections: the order import', () => {
  it("reads the connections' registry entries, secrets and buckets, not the deployment's secret", () => {
    const importer = t.stateless.orderIntake!.importer;
    const roleId = t.stateless.resolve(
      (importer.role.node.defaultChild as unknown as { logicalId: string }).logicalId,
    ) as string;
    const text = JSON.stringify(
      ofType('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId)),
    );
    expect(text).toContain(':secret:accounting-events-prod/connections/*');
    expect(text).not.toMatch(/CredentialsSecret/);
    const fnId = t.stateless.resolve(
      (importer.function.node.defaultChild as unknown as { logicalId: string }).logicalId,
    ) as string;
    const variables = (stateless[fnId]!.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(variables).toHaveProperty(ENV.connectionsTable);
    expect(variables).toHaveProperty(ENV.rateLimitTable);
    expect(variables).not.toHaveProperty(ENV.credentialsSecret);
  });
});

describe('many connections: the e-invoice tracker passes over every connection', () => {
  const armed = buildTestApp({
    connectionRegistry: true,
    actions: { ACTIONS_EINVOICE_PARTNERS: '12345678' },
  });
  it("lists the registry (Scan), reads the connections' secrets and buckets, not the deployment's secret", () => {
    const resources = armed.statelessTemplate.toJSON().Resources as Record<string, Resource>;
    const [fn] = armed.stateless.scheduledFunctions;
    const roleId = armed.stateless.resolve(
      (fn!.role.node.defaultChild as unknown as { logicalId: string }).logicalId,
    ) as string;
    const text = JSON.stringify(
      Object.values(resources).filter(
        (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(roleId),
      ),
    );
    for (const action of ['dynamodb:Scan', 'dynamodb:GetItem', 'secretsmanager:GetSecretValue'])
      expect(text).toContain(action);
    expect(text).toContain(':secret:accounting-events-prod/connections/*');
    expect(text).not.toMatch(/CredentialsSecret/);
    expect(nagFindings(armed.app).errors).toEqual([]);
  });
});

describe('many connections: alarms, dashboard, cdk-nag', () => {
  it('Connection.Unhealthy of any connection is logged and alarms', () => {
    t.statelessTemplate.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: [{ prefix: 'accounting.' }], 'detail-type': ['Connection.Unhealthy'] },
      Targets: Match.arrayWith([Match.objectLike({ Arn: Match.anyValue() })]),
    });
    t.statelessTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'accounting-events-prod-Connections-UnhealthyAlarm',
      MetricName: 'MatchedEvents',
      Namespace: 'AWS/Events',
    });
    const names = ofType('AWS::CloudWatch::Alarm').map(([, a]) => JSON.stringify(a.Properties.AlarmName));
    expect(names.join()).not.toMatch(/PollDlq|PollQueueAge|Dispatcher/);
  });

  it('with operationalAlarms, every alarm name is unique (the poller is alarmed once)', () => {
    const operational = buildTestApp({ connectionRegistry: true, operationalAlarms: true });
    const names = Object.values(operational.statelessTemplate.findResources('AWS::CloudWatch::Alarm')).map(
      (a) => JSON.stringify(a.Properties.AlarmName),
    );
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(names).toContain(JSON.stringify('accounting-events-prod-Poller-ThrottlesAlarm'));
  });

  it('a malformed registry item alarms (the poller counts what it skipped)', () => {
    t.statelessTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'RegistryItemsMalformed',
      Dimensions: [{ Name: 'service', Value: 'poll-connections' }],
      Threshold: 0,
    });
  });

  it('with perConnectionMetrics (and the dashboard on), the dashboard graphs per connection and has a connection variable', () => {
    expect(ofType('AWS::CloudWatch::Dashboard')).toEqual([]);
    const opted = buildTestApp({ connectionRegistry: true, perConnectionMetrics: true, dashboard: true });
    const dashboards = Object.values(
      opted.statelessTemplate.toJSON().Resources as Record<string, Resource>,
    ).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);
    expect(body).toContain('ConnectionLagMs');
    expect(body).toContain('ConnectionUnhealthy');
    expect(body).toMatch(/variables.*property.*connection.*populateFrom.*connection/);
  });

  it('has zero unacknowledged cdk-nag findings', () => {
    expect(nagFindings(t.app)).toEqual({ errors: [], warnings: [] });
  });
});
