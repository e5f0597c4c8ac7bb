import { SQSClient } from '@aws-sdk/client-sqs';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdapterConfig } from '#functions/adapters/aws/adapter-config.js';
import { envConnectionEntry } from '#functions/adapters/env-connection-registry.js';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import type { ActionsConfig } from '#functions/core/actions/config.js';
import { findAction } from '#functions/core/actions/registry.js';
import { settingsOf } from '#functions/core/connection-actions.js';
import { loadActionFunctionConfig } from '#functions/handlers/action-config.js';
import { deadLetterSinkFromEnvironment } from '#functions/handlers/action-runtime.js';
import { loadConnectionPollerConfig } from '#functions/handlers/connections-config.js';
import { ENV } from '#functions/shared/env-names.js';
import { TABLE_ACCESS } from '#infra/constructs/grants.js';
import { buildTestApp, nagFindings, TEST_BASE_URL, type TestApp } from './support.js';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown> & { [k: string]: unknown } }
>;

// E-invoicing on: every handler kind (transfer, archive, send, scheduled tracker) is deployed.
const SETTINGS = { actions: { ACTIONS_EINVOICE_PARTNERS: '12345678,87654321' } };

let t: TestApp;
let resources: Resources;

beforeAll(() => {
  t = buildTestApp(SETTINGS);
  resources = t.statelessTemplate.toJSON().Resources as Resources;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** The logical id of the Lambda function of an AppFunction at `path` (e.g. `Route-archive-isdoc`). */
function functionId(path: string): string {
  const id = t.stateless.resolve(
    (
      t.stateless.node.findChild(path).node.findChild('Function').node.defaultChild as unknown as {
        logicalId: string;
      }
    ).logicalId,
  ) as string;
  return id;
}

/** Every Allow statement of the role of the AppFunction at `path`. */
function statementsOf(path: string): { Action: string | string[]; Resource: unknown; Condition?: unknown }[] {
  const role = t.stateless.node.findChild(path).node.findChild('Role');
  const roleId = t.stateless.resolve(
    (role.node.defaultChild as unknown as { logicalId: string }).logicalId,
  ) as string;
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: never[] }).Statement);
}

function actionsOf(path: string): string[] {
  return [
    ...new Set(statementsOf(path).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))),
  ].sort();
}

/** The logical id of the DLQ of route `routeId`. */
function dlqId(routeId: string): string {
  const queue = t.stateless.node.findChild(`Route-${routeId}-Dlq`);
  return t.stateless.resolve(
    (queue.node.defaultChild as unknown as { logicalId: string }).logicalId,
  ) as string;
}

const functionPaths = () => [
  'Poller',
  ...t.routes.map((r) => `Route-${r.id}`),
  ...t.scheduledActions.map((a) => `Scheduled-${a.id}`),
];

describe('functions', () => {
  it('deploys the poller, one function per route and the scheduled actions', () => {
    expect(t.routes.map((r) => r.handler)).toEqual(
      expect.arrayContaining(['transfer-documents', 'archive-isdoc', 'send-invoice']),
    );
    expect(t.scheduledActions.map((a) => a.handler)).toEqual([
      'track-einvoices',
      'report-einvoicing-readiness',
    ]);
    // … the order intake's two (test/infra/intake.test.ts) and the bank statement import (the payment route takes its events).
    expect(ofType('AWS::Lambda::Function')).toHaveLength(1 + t.routes.length + t.scheduledActions.length + 3);
  });

  it('every function: Node 24, ARM64, its memory and timeout, no tracing by default, its own log group', () => {
    const expected: Record<string, { memory: number; timeout: number }> = {
      Poller: { memory: 512, timeout: 50 },
      ...Object.fromEntries(
        t.routes.map((r) => [`Route-${r.id}`, { memory: 512, timeout: r.timeoutSeconds }]),
      ),
      ...Object.fromEntries(
        t.scheduledActions.map((a) => [`Scheduled-${a.id}`, { memory: 512, timeout: a.timeoutSeconds }]),
      ),
    };
    for (const path of functionPaths()) {
      const fn = resources[functionId(path)]!;
      expect(fn.Properties, path).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: expected[path]!.memory,
        Timeout: expected[path]!.timeout,
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: expect.stringContaining('Logs') } },
      });
      // Tracing and source maps are off by default (settings `tracing`, `sourceMaps`).
      expect(fn.Properties.TracingConfig, path).toBeUndefined();
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(env).toMatchObject({ POWERTOOLS_METRICS_NAMESPACE: 'AccountingEvents' });
      expect(env.NODE_OPTIONS, path).toBeUndefined();
      expect(env.POWERTOOLS_SERVICE_NAME).toEqual(expect.any(String));
    }
    t.statelessTemplate.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('memory and the poller timeout follow the configuration', () => {
    const custom = buildTestApp({
      pollerMemoryMb: 1024,
      scheduleRateMinutes: 10,
      pollerTimeoutSeconds: 300,
      actionMemoryMb: 256,
    });
    custom.statelessTemplate.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 1024,
      Timeout: 300,
      ReservedConcurrentExecutions: Match.absent(),
    });
    custom.statelessTemplate.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { MemorySize: 256 },
      // The scheduled actions, the intake's two functions and the bank statement import run at the action memory too.
      custom.routes.length + custom.scheduledActions.length + 3,
    );
  });

  it('no function reserves concurrency by default (an account limited to 10 cannot); the poller may be given some', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
    }
    const reserved = buildTestApp({ pollerReservedConcurrency: 1 });
    reserved.statelessTemplate.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { ReservedConcurrentExecutions: 1 },
      1,
    );
  });

  it('the poller times out before its next tick, by default and at any rate', () => {
    const timeoutOf = (app: TestApp) =>
      app.stateless.resolve(
        (app.stateless.poller.function.node.defaultChild as unknown as { timeout: number }).timeout,
      ) as number;
    expect(timeoutOf(t)).toBeLessThan(60);
    const slow = buildTestApp({ scheduleRateMinutes: 3, pollerTimeoutSeconds: 170 });
    expect(timeoutOf(slow)).toBeLessThan(3 * 60);
    slow.statelessTemplate.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(3 minutes)',
    });
  });

  it('no role carries a managed policy (no AWSLambdaBasicExecutionRole)', () => {
    for (const [id, role] of ofType('AWS::IAM::Role'))
      expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
  });
});

describe('least privilege per function', () => {
  const logs = ['logs:CreateLogStream', 'logs:PutLogEvents'];
  // Tracing is off by default: no X-Ray statement (see 'with tracing' below).
  const xray: string[] = [];
  const secret = ['secretsmanager:GetSecretValue'];
  // What Lambda's SQS poller calls; no ChangeMessageVisibility or GetQueueUrl (nothing calls them).
  const sqsConsume = ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'];
  const sorted = (...lists: readonly string[][]) => [...new Set(lists.flat())].sort();

  it('poller: checkpoints, put events, claim-check writes and poll state, the secret', () => {
    expect(actionsOf('Poller')).toEqual(
      sorted(
        logs,
        xray,
        secret,
        ['events:PutEvents'],
        [...TABLE_ACCESS.checkpoints],
        ['s3:GetObject', 's3:ListBucket', 's3:PutObject'],
      ),
    );
  });

  it('poller: reads and writes its poll state under sync/, writes claims/, lists the bucket unconditioned', () => {
    // The deletion check reads sync/<connection>/<collection>/ids.txt.gz, missing on the first run:
    // without ListBucket (and a GET carries no s3:prefix) S3 answers 403 instead of 404.
    const bucket = statementsOf('Poller').filter((s) =>
      JSON.stringify(s.Resource).includes('ClaimCheckBucket'),
    );
    const byResource = (suffix: string) =>
      bucket.filter((s) => JSON.stringify(s.Resource).endsWith(`${JSON.stringify(suffix)}]]}`));
    expect(byResource('/sync/*')).toEqual([
      expect.objectContaining({ Action: ['s3:GetObject', 's3:PutObject'] }),
    ]);
    expect(byResource('/claims/*')).toEqual([expect.objectContaining({ Action: 's3:PutObject' })]);
    const list = bucket.filter((s) => [s.Action].flat().includes('s3:ListBucket'));
    expect(list).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: { 'Fn::ImportValue': expect.stringContaining('ClaimCheckBucket') },
      },
    ]);
    expect(bucket).toHaveLength(3);
  });

  it('transfer: idempotency, put events, the secret, its queue, sends to its DLQ; no bucket', () => {
    expect(actionsOf('Route-transfer-received-order')).toEqual(
      sorted(
        logs,
        xray,
        secret,
        sqsConsume,
        ['sqs:SendMessage'],
        ['events:PutEvents'],
        [...TABLE_ACCESS.idempotency],
      ),
    );
  });

  it('each route function may send to its own DLQ only, and is given its URL', () => {
    for (const route of t.routes) {
      const path = `Route-${route.id}`;
      const sends = statementsOf(path).filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
      expect(sends, path).toEqual([
        expect.objectContaining({
          Action: 'sqs:SendMessage',
          Resource: { 'Fn::GetAtt': [dlqId(route.id), 'Arn'] },
        }),
      ]);
      const vars = (
        resources[functionId(path)]!.Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(vars[ENV.actionsDeadLetterQueueUrl], path).toEqual({ Ref: dlqId(route.id) });
    }
    for (const path of ['Poller', ...t.scheduledActions.map((a) => `Scheduled-${a.id}`)]) {
      expect(actionsOf(path), path).not.toContain('sqs:SendMessage');
    }
  });

  it('archive: reads and writes isdoc/, only writes rejected/isdoc/; ListBucket unconditioned, so HEAD of a new key answers 404', () => {
    const statements = statementsOf('Route-archive-isdoc');
    const archive = statements.filter((s) => JSON.stringify(s.Resource).includes('ArchiveBucket'));
    expect(archive).toHaveLength(3);
    const isdoc = archive.find((s) => /"\/isdoc\/\*"\]\]\}$/.test(JSON.stringify(s.Resource)));
    expect([isdoc?.Action].flat().sort()).toEqual([
      's3:AbortMultipartUpload',
      's3:GetObject',
      's3:PutObject',
    ]);
    const rejected = archive.find((s) => JSON.stringify(s.Resource).includes('"/rejected/isdoc/*"'));
    expect([rejected?.Action].flat().sort()).toEqual(['s3:AbortMultipartUpload', 's3:PutObject']);
    // A HEAD carries no s3:prefix: a prefix-conditioned ListBucket would leave a missing key at 403.
    expect(archive.find((s) => s.Action === 's3:ListBucket')).toEqual({
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: { 'Fn::ImportValue': expect.stringContaining('ArchiveBucket') },
    });
  });

  it('no statement lists a bucket under an s3:prefix condition', () => {
    const text = JSON.stringify(ofType('AWS::IAM::Policy'));
    expect(text).not.toContain('s3:prefix');
  });

  it('every PutEvents statement: ForAllValues on source and detail-type, and a Null guard', () => {
    const putEvents = ofType('AWS::IAM::Policy').flatMap(([id, p]) =>
      (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement.filter((st) =>
        [st.Action].flat().includes('events:PutEvents'),
      ).map((st) => [id, st] as const),
    );
    // The poller, every route and scheduled function, the intake's two, the bank statement import.
    expect(putEvents.length).toBe(functionPaths().length + 3);
    for (const [id, st] of putEvents) {
      const condition = st.Condition as Record<string, Record<string, unknown>>;
      expect(condition.Null, id).toEqual({ 'events:source': 'false', 'events:detail-type': 'false' });
      const operators = Object.keys(condition).filter((op) => op !== 'Null');
      for (const op of operators) expect(op, id).toMatch(/^ForAllValues:String(Equals|Like)$/);
      const keys = operators.flatMap((op) => Object.keys(condition[op]!)).sort();
      expect(keys, id).toEqual(['events:detail-type', 'events:source']);
    }
    expect(statementsOf('Poller').find((st) => st.Action === 'events:PutEvents')?.Condition).toEqual({
      Null: { 'events:source': 'false', 'events:detail-type': 'false' },
      'ForAllValues:StringEquals': { 'events:source': ['accounting.default'] },
      'ForAllValues:StringLike': {
        'events:detail-type': [
          '*.Created',
          '*.Updated',
          '*.Deleted',
          '*.Paid',
          '*.PartiallyPaid',
          '*.Overdue',
          'Connection.Unhealthy',
          'Connection.Recovered',
        ],
      },
    });
  });

  it('no DescribeSecret anywhere: the functions only call GetSecretValue', () => {
    for (const template of [t.statelessTemplate, t.statefulTemplate]) {
      expect(JSON.stringify(template.toJSON())).not.toContain('secretsmanager:DescribeSecret');
    }
  });

  it('only the archive may abort multipart uploads (the one function that streams a body of unknown length)', () => {
    for (const path of functionPaths()) {
      expect(actionsOf(path).includes('s3:AbortMultipartUpload'), path).toBe(path === 'Route-archive-isdoc');
    }
  });

  it('send: action state table; tracker: state table and the put of its records, no queue, no idempotency', () => {
    expect(actionsOf('Route-send-einvoice')).toEqual(expect.arrayContaining([...TABLE_ACCESS.state]));
    const tracker = actionsOf('Scheduled-track-einvoices');
    expect(tracker).toEqual(
      sorted(logs, xray, secret, ['events:PutEvents', 's3:PutObject'], [...TABLE_ACCESS.state]),
    );
  });

  it('readiness report: puts its reports and its event, nothing else', () => {
    expect(actionsOf('Scheduled-report-einvoicing-readiness')).toEqual(
      sorted(logs, xray, secret, ['events:PutEvents', 's3:PutObject']),
    );
  });

  it('no function role has a statement on Resource "*" (tracing off)', () => {
    for (const path of functionPaths()) {
      for (const s of statementsOf(path)) expect(s.Resource, path).not.toBe('*');
    }
  });

  it('with tracing and source maps: active tracing, the X-Ray statement as the only Resource "*", --enable-source-maps', () => {
    const traced = buildTestApp({ ...SETTINGS, tracing: true, sourceMaps: true });
    const fns = Object.entries(
      traced.statelessTemplate.findResources('AWS::Lambda::Function') as Record<
        string,
        { Properties: { TracingConfig?: unknown; Environment: { Variables: Record<string, unknown> } } }
      >,
    );
    expect(fns.length).toBeGreaterThan(3);
    for (const [id, fn] of fns) {
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS, id).toBe('--enable-source-maps');
    }
    const wildcard = Object.values(
      traced.statelessTemplate.findResources('AWS::IAM::Policy') as Record<
        string,
        { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } }
      >,
    )
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st) => st.Resource === '*');
    expect(wildcard.length).toBeGreaterThan(0);
    for (const st of wildcard)
      expect(sorted([st.Action].flat())).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  it('each function gets exactly the resource env vars of its grants', () => {
    const env = (path: string) =>
      (resources[functionId(path)]!.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
    expect(env('Poller')).toHaveProperty(ENV.credentialsSecret);
    expect(env('Poller')).not.toHaveProperty(ENV.actionsIdempotencyTable);
    expect(env('Route-archive-isdoc')).toHaveProperty(ENV.actionsArchiveBucket);
    expect(env('Route-transfer-received-order')).not.toHaveProperty(ENV.actionsArchiveBucket);
    expect(env('Route-transfer-received-order')).toHaveProperty(ENV.actionsDeadLetterQueueUrl);
    expect(env('Poller')).not.toHaveProperty(ENV.actionsDeadLetterQueueUrl);
    expect(env('Scheduled-track-einvoices')).not.toHaveProperty(ENV.actionsDeadLetterQueueUrl);
    expect(env('Route-send-einvoice')).toMatchObject({ ACTIONS_EINVOICE_PARTNERS: '12345678,87654321' });
  });

  it("the functions' own config loaders accept each function's environment", () => {
    // References (table names, queue URLs, ARNs) become placeholder strings, as the deployed values would.
    const envOf = (path: string): Record<string, string> =>
      Object.fromEntries(
        Object.entries(
          (resources[functionId(path)]!.Properties.Environment as { Variables: Record<string, unknown> })
            .Variables,
        ).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : 'https://sqs.eu-central-1.amazonaws.com/1/resolved',
        ]),
      );
    const poller = loadConnectionPollerConfig(envOf('Poller'));
    expect(poller.connectionsTable).toBeUndefined();
    expect(poller.adapters).toMatchObject({
      checkpointsTable: expect.any(String),
      claimCheckBucket: expect.any(String),
    });
    // Its registry of one: the deployment's connection, with the deployment's credentials (the secret)
    // and the service URL the stack passes (`sk` presets none: the config refuses a deployment without it).
    expect(envConnectionEntry(envOf('Poller'))).toMatchObject({
      name: 'default',
      variant: 'sk',
      baseUrl: TEST_BASE_URL,
      credentialsSecret: 'deployment',
    });

    // What each action handler requires of its settings beyond the bus and the secret (spot checks
    // of the registry's `uses`; the loader below checks every action's).
    const needs: Record<string, (a: ActionsConfig) => (string | undefined)[]> = {
      'transfer-documents': (a) => [a.idempotency.tableName],
      'archive-isdoc': (a) => [a.archiveBucket],
      'send-invoice': (a) => [a.idempotency.tableName, a.stateTable],
      'track-einvoices': (a) => [a.stateTable, a.archiveBucket],
      'report-einvoicing-readiness': (a) => [a.archiveBucket],
    };
    const actionFunctions = [
      ...t.routes.map((r) => ({ path: `Route-${r.id}`, handler: r.handler, sqs: true })),
      ...t.scheduledActions.map((a) => ({ path: `Scheduled-${a.id}`, handler: a.handler, sqs: false })),
    ];
    for (const { path, handler, sqs } of actionFunctions) {
      const env = envOf(path);
      const actions = loadActionsConfig(env);
      // Each action's registry of one is built from its environment too, at every cold start.
      expect(envConnectionEntry(env), path).toMatchObject({ variant: 'sk', baseUrl: TEST_BASE_URL });
      expect(loadAdapterConfig(env, ['eventBus', 'credentials']).eventBusName, path).toEqual(
        expect.any(String),
      );
      expect(findAction(handler), handler).toBeDefined();
      for (const value of needs[handler]?.(actions) ?? []) expect(value, path).toEqual(expect.any(String));
      // The action's own loader (the shared part and its own section, the stores its registry entry
      // uses) accepts it, and reads each as the registry's loader does.
      const action = findAction(handler)!;
      const own = loadActionFunctionConfig(env, action.uses, settingsOf(action)).actions;
      expect(own, path).toEqual(
        Object.fromEntries(Object.keys(own).map((key) => [key, actions[key as keyof ActionsConfig]])),
      );
      if (action.settings) expect(Object.keys(own), path).toContain(action.settings.section);
      const logger = { debug() {}, info() {}, warn() {}, error() {} };
      expect(deadLetterSinkFromEnvironment(env, logger, new SQSClient({})) !== undefined, path).toBe(sqs);
    }
  });

  it('every function reads the one connection name of the configuration', () => {
    for (const path of functionPaths()) {
      const vars = (
        resources[functionId(path)]!.Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(vars[ENV.connection], path).toBe('default');
      expect(
        Object.keys(vars).filter((name) => name.endsWith('_CONNECTION')),
        path,
      ).toEqual([ENV.connection]);
    }
  });
});

describe('routes', () => {
  it('one rule per route on the custom bus, whose pattern equals the routing table exactly', () => {
    const rules = ofType('AWS::Events::Rule').filter(([id]) => id.startsWith('Route'));
    expect(rules).toHaveLength(t.routes.length);
    for (const route of t.routes) {
      const matching = rules.filter(
        ([, r]) => JSON.stringify(r.Properties.EventPattern) === JSON.stringify(route.pattern),
      );
      expect(matching, route.id).toHaveLength(1);
      expect(JSON.stringify(matching[0]![1].Properties.EventBusName)).toContain('EventBus');
      expect(matching[0]![1].Properties.EventPattern).toEqual(route.pattern);
    }
  });

  it('every route: queue with a DLQ after the route maxReceiveCount; rule target with the same DLQ', () => {
    for (const route of t.routes) {
      const q = t.stateless.resolve(
        (routeOf(route.id).queue.node.defaultChild as unknown as { logicalId: string }).logicalId,
      );
      const dlq = t.stateless.resolve(
        (routeOf(route.id).deadLetterQueue.node.defaultChild as unknown as { logicalId: string }).logicalId,
      );
      expect(resources[q]!.Properties).toMatchObject({
        RedrivePolicy: {
          maxReceiveCount: route.maxReceiveCount,
          deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] },
        },
        VisibilityTimeout: route.timeoutSeconds * 6,
        SqsManagedSseEnabled: true,
      });
    }
    for (const [id, rule] of ofType('AWS::Events::Rule').filter(([id]) => id.startsWith('Route'))) {
      expect(rule.Properties.Targets, id).toEqual([
        expect.objectContaining({ DeadLetterConfig: { Arn: expect.anything() } }),
      ]);
    }
  });

  it('every route: event source with bounded concurrency and partial batch failures', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(t.routes.length + 2); // + the intake's import queue and the bank statements'
    for (const route of t.routes) {
      t.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionId(`Route-${route.id}`) },
        ScalingConfig: { MaximumConcurrency: route.maxConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: 5,
      });
    }
  });

  it('event source mappings keep their logical ids; no role may change visibility or look up queue URLs', () => {
    for (const route of t.routes) {
      const ids = ofType('AWS::Lambda::EventSourceMapping')
        .filter(([, m]) =>
          JSON.stringify(m.Properties.FunctionName).includes(functionId(`Route-${route.id}`)),
        )
        .map(([id]) => id);
      expect(ids, route.id).toEqual([expect.stringMatching(/FunctionSqsEventSource/)]);
    }
    const policies = JSON.stringify(ofType('AWS::IAM::Policy'));
    expect(policies).not.toContain('sqs:ChangeMessageVisibility');
    expect(policies).not.toContain('sqs:GetQueueUrl');
  });

  it('routeConcurrency overrides one route', () => {
    const custom = buildTestApp({ routeConcurrency: { 'archive-isdoc': 7 } });
    custom.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 7 },
    });
  });

  it('every queue has a DLQ or is one, and every DLQ has an alarm (queue age only with operationalAlarms)', () => {
    const queues = ofType('AWS::SQS::Queue').map(([id]) => id);
    const dlqs = new Set(
      ofType('AWS::SQS::Queue').flatMap(([, q]) => {
        const target = (q.Properties.RedrivePolicy as { deadLetterTargetArn?: { 'Fn::GetAtt': [string] } })
          ?.deadLetterTargetArn?.['Fn::GetAtt'][0];
        return target ? [target] : [];
      }),
    );
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => JSON.stringify(a.Properties));
    const hasAlarm = (list: string[], id: string) => list.some((a) => a.includes(`"${id}"`));
    for (const id of queues) {
      const hasDlq = Boolean(resources[id]!.Properties.RedrivePolicy);
      expect(hasDlq || dlqs.has(id) || id.startsWith('ScheduleDlq'), id).toBe(true);
      // A dead letter is a loss: its alarm is always there; a waiting message is not.
      expect(hasAlarm(alarms, id), `alarm for ${id}`).toBe(!hasDlq);
    }
    const operational = buildTestApp({ ...SETTINGS, operationalAlarms: true });
    const all = Object.values(
      operational.statelessTemplate.findResources('AWS::CloudWatch::Alarm') as Record<string, unknown>,
    ).map((a) => JSON.stringify(a));
    for (const id of queues) expect(hasAlarm(all, id), `operational alarm for ${id}`).toBe(true);
    // DLQ alarms fire on the first message.
    for (const id of [...dlqs]) {
      const alarm = ofType('AWS::CloudWatch::Alarm').find(([, a]) =>
        JSON.stringify(a.Properties).includes(`"${id}"`),
      );
      expect(alarm![1].Properties).toMatchObject({
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
  });

  it('alarms for poller errors and lag, action failures; all notify the topic', () => {
    // Worst watermark lag over every collection: the poller reports it as one series; silence breaches.
    t.statelessTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 900_000,
      TreatMissingData: 'breaching',
      MetricName: 'WatermarkLagMs',
      Namespace: 'AccountingEvents',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'service', Value: 'poll-changes' }],
    });
    // With detailedMetrics, one series per collection: a Metrics Insights query takes the worst.
    buildTestApp({ ...SETTINGS, detailedMetrics: true }).statelessTemplate.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      {
        Threshold: 900_000,
        TreatMissingData: 'breaching',
        Metrics: [
          Match.objectLike({
            Expression: Match.stringLikeRegexp(
              `SELECT MAX\\(WatermarkLagMs\\) FROM SCHEMA\\("AccountingEvents", collection, service\\) WHERE service = 'poll-changes'`,
            ),
          }),
        ],
      },
    );
    const pollerErrors = JSON.stringify(
      t.statelessTemplate.findResources('AWS::CloudWatch::Alarm', {
        Properties: { AlarmDescription: Match.stringLikeRegexp('^The poller failed') },
      }),
    );
    expect(pollerErrors).toContain('CollectionsFailed');
    expect(pollerErrors).toContain(functionId('Poller'));
    t.statelessTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Events',
      MetricName: 'MatchedEvents',
      Dimensions: Match.arrayWith([
        { Name: 'RuleName', Value: { Ref: Match.stringLikeRegexp('^ActionFailedRule') } },
      ]),
    });
    // Function errors alarm only with operationalAlarms: a failed message ends in its DLQ, which alarms.
    t.statelessTemplate.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { MetricName: 'Errors' }, 0);
    const operational = buildTestApp({ ...SETTINGS, operationalAlarms: true });
    for (const path of functionPaths().filter((p) => p !== 'Poller')) {
      operational.statelessTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(path) } }],
      });
    }
    const topicId = ofType('AWS::SNS::Topic')[0]![0];
    t.statelessTemplate.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [{ Ref: topicId }],
    });
    // Lean by default: no customer managed key, no dashboard (settings customerManagedKey, dashboard).
    t.statelessTemplate.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.absent() });
    t.statelessTemplate.resourceCountIs('AWS::KMS::Key', 0);
    t.statelessTemplate.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    const armed = buildTestApp({ ...SETTINGS, customerManagedKey: true, dashboard: true });
    armed.statelessTemplate.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    armed.statelessTemplate.resourceCountIs('AWS::KMS::Key', 1);
    armed.statelessTemplate.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('action outcome events (and Action.Failed) are copied to one log group, without a custom resource', () => {
    const rules = ofType('AWS::Events::Rule').filter(([id]) => id.startsWith('Action'));
    expect(rules).toHaveLength(2);
    const failed = rules.find(([id]) => id.startsWith('ActionFailedRule'))!;
    expect(failed[1].Properties.EventPattern).toEqual({
      source: ['accounting.default'],
      'detail-type': ['Action.Failed'],
    });
    const outcomes = rules.find(([id]) => id.startsWith('ActionOutcomesRule'))!;
    expect((outcomes[1].Properties.EventPattern as Record<string, string[]>)['detail-type']).toContain(
      'IssuedInvoice.IsdocArchived',
    );
    // One policy per log group that rules write to: the outcomes', and the event log's (every event).
    t.statelessTemplate.resourceCountIs('AWS::Logs::ResourcePolicy', 2);
    t.statelessTemplate.resourceCountIs('Custom::CloudwatchLogResourcePolicy', 0);
  });

  it('Connection.Unhealthy of the one connection is logged and alarms, as with the registry', () => {
    const [id, rule] = ofType('AWS::Events::Rule').find(([id]) => id.startsWith('ConnectionsUnhealthyRule'))!;
    expect(rule.Properties.EventPattern).toEqual({
      source: ['accounting.default'],
      'detail-type': ['Connection.Unhealthy'],
    });
    t.statelessTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'accounting-events-prod-Connections-UnhealthyAlarm',
      MetricName: 'MatchedEvents',
      Dimensions: Match.arrayWith([{ Name: 'RuleName', Value: { Ref: id } }]),
    });
    // The registry's poller-run and malformed-item alarms need a registry table.
    t.statelessTemplate.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      { MetricName: 'RegistryItemsMalformed' },
      0,
    );
  });

  it('the outcome log policy: CreateLogStream for this account, PutLogEvents only from its rules', () => {
    // aws:SourceArn comes with PutLogEvents, not with CreateLogStream: under it no stream is ever made.
    const [, policy] = ofType('AWS::Logs::ResourcePolicy')[0]!;
    const statements = (
      policyDocumentOf(policy.Properties.PolicyDocument) as {
        Statement: { Action: string | string[]; Condition: Record<string, Record<string, unknown>> }[];
      }
    ).Statement;
    const withAction = (action: string) => statements.filter((st) => [st.Action].flat().includes(action));
    expect(withAction('logs:CreateLogStream')).toEqual([
      expect.objectContaining({
        Action: 'logs:CreateLogStream',
        Condition: { StringEquals: { 'aws:SourceAccount': '111111111111' } },
      }),
    ]);
    const puts = withAction('logs:PutLogEvents');
    // The outcomes rule, the Action.Failed rule and the Connection.Unhealthy rule.
    expect(puts).toHaveLength(3);
    for (const st of puts) {
      expect(st.Action).toBe('logs:PutLogEvents');
      expect(st.Condition.ArnEquals).toEqual({ 'aws:SourceArn': expect.anything() });
    }
  });

  it('no statement anywhere puts CreateLogStream under an aws:SourceArn condition', () => {
    for (const template of [t.statelessTemplate, t.statefulTemplate]) {
      const documents = Object.values(template.toJSON().Resources as Resources).flatMap((r) => {
        const doc = r.Properties?.PolicyDocument;
        return doc === undefined ? [] : [policyDocumentOf(doc)];
      });
      for (const doc of documents) {
        for (const st of (doc as { Statement: { Action: unknown; Condition?: unknown }[] }).Statement) {
          if (![st.Action].flat().includes('logs:CreateLogStream')) continue;
          expect(JSON.stringify(st.Condition ?? {})).not.toContain('aws:SourceArn');
        }
      }
    }
  });

  it('an alarm e-mail subscribes to the topic', () => {
    const custom = buildTestApp({ alarmEmail: 'ops@example.com' });
    custom.statelessTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });
});

/**
 * A policy document as an object: as is, or parsed from its JSON text (a log group's resource
 * policy), whose references (`Fn::Join` parts) become the text `TOKEN`.
 */
function policyDocumentOf(value: unknown): unknown {
  if (typeof value === 'string') return JSON.parse(value);
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join === undefined) return value;
  return JSON.parse(join[1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join(join[0]));
}

function routeOf(id: string) {
  const found = t.stateless.routeResources.find((r) => r.route.id === id);
  if (!found) throw new Error(`no route ${id}`);
  return found;
}

describe('schedule', () => {
  it('ticks the poller every minute, retries twice, then the DLQ', () => {
    t.statelessTemplate.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [functionId('Poller'), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ScheduleDlq'), 'Arn'] } },
      },
    });
  });

  it('stale or failed ticks are not retried by Lambda: the next tick supersedes them', () => {
    t.statelessTemplate.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('Poller') },
      MaximumEventAgeInSeconds: 60,
      MaximumRetryAttempts: 0,
    });
  });

  it('follows the configured rate', () => {
    const custom = buildTestApp({ scheduleRateMinutes: 5 });
    custom.statelessTemplate.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 } }),
    });
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('has zero unacknowledged findings with every route and the scheduled action', () => {
    expect(nagFindings(t.app)).toEqual({ errors: [], warnings: [] });
  });

  it('runs as a validation plugin on synth, which does not fail (every acknowledgement matches)', () => {
    const withNag = buildTestApp(SETTINGS, { nag: true });
    expect(() => withNag.app.synth({ force: true })).not.toThrow();
  });

  it('has zero unacknowledged findings for a dev stage without Object Lock', () => {
    const dev = buildTestApp({ stage: 'dev', archiveRetentionMode: 'OFF', removalPolicy: 'DESTROY' });
    expect(nagFindings(dev.app)).toEqual({ errors: [], warnings: [] });
  });
});
