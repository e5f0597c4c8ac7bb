/**
 * Template defects, each of which would break or degrade a real deployment, applied one at a
 * time to the synthesized assembly by `npm run test:deployment:mutations`. Each names the test
 * file that must fail and what its failure message must name: the resource and the property.
 */
import type { Assembly, Json, Resource } from '../assembly.js';

export interface Defect {
  readonly id: string;
  readonly category:
    | 'IAM'
    | 'rule'
    | 'trigger'
    | 'schedule'
    | 'queue'
    | 'HTTP'
    | 'role'
    | 'runtime'
    | 'retention'
    | 'settings'
    | 'logs';
  readonly description: string;
  /** The test file that must fail. */
  readonly file: string;
  /** What the failure output must name: the resource (a logical id prefix) and the property. */
  readonly names: readonly [resource: string, property: string];
  /** Changes the assembly; returns how many resources it changed. */
  apply(a: Assembly): number;
}

const ONE = 'test/deployment/one-connection.test.ts';
const FAILURES = 'test/deployment/failure-paths.test.ts';

/** Applies `change` to the resolved properties of every resource of `type` whose logical id starts with `prefix`. */
function each(a: Assembly, type: string, prefix: string, change: (p: Json, r: Resource) => void): number {
  const found = a.byType(type).filter((r) => r.logicalId.startsWith(prefix));
  for (const r of found) change(a.props(r), r);
  return found.length;
}

/** Removes `action` from every statement of the identity policies attached to the roles whose logical id starts with `prefix`. */
function revokeFromRoles(a: Assembly, prefix: string, matches: (action: string) => boolean): number {
  let changed = 0;
  for (const role of a.byType('AWS::IAM::Role').filter((r) => r.logicalId.startsWith(prefix))) {
    for (const { policy } of a.identityPolicies(role.attributes.Arn as string)) {
      for (const s of policy.Statement) {
        const before = [s.Action].flat();
        const after = before.filter((x: string) => !matches(x));
        if (after.length !== before.length) changed++;
        s.Action = after;
      }
      const kept = policy.Statement.filter((s: Json) => s.Action.length > 0);
      policy.Statement.splice(0, policy.Statement.length, ...kept);
    }
  }
  return changed;
}

const functionRolePrefixes = (a: Assembly) =>
  a.byType('AWS::Lambda::Function').map((f) => a.byRefOrArn(a.props(f).Role)?.logicalId as string);

const removeResource = (a: Assembly, type: string) => {
  const list = a.resources as Resource[];
  const before = list.length;
  for (let i = list.length - 1; i >= 0; i--) if (list[i]?.type === type) list.splice(i, 1);
  return before - list.length;
};

const NEVER = 'cron(0 0 30 2 ? *)';

export const DEFECTS: readonly Defect[] = [
  // ---- the 18 the audit found unnoticed ------------------------------------------------------
  {
    id: 'triggers-disabled',
    category: 'trigger',
    description: 'every SQS trigger Enabled: false',
    file: ONE,
    names: ['SqsEventSource', 'Enabled'],
    apply: (a) => each(a, 'AWS::Lambda::EventSourceMapping', '', (p) => (p.Enabled = false)),
  },
  {
    id: 'trigger-concurrency-1',
    category: 'trigger',
    description: "the archive trigger's MaximumConcurrency 1 (AWS requires at least 2)",
    file: ONE,
    names: ['RoutearchiveisdocFunctionSqsEventSource', 'MaximumConcurrency'],
    apply: (a) =>
      each(
        a,
        'AWS::Lambda::EventSourceMapping',
        'RoutearchiveisdocFunction',
        (p) => (p.ScalingConfig = { MaximumConcurrency: 1 }),
      ),
  },
  {
    id: 'reserved-concurrency-0',
    category: 'runtime',
    description: 'ReservedConcurrentExecutions 0 on every function',
    file: ONE,
    names: ['Function', 'ReservedConcurrentExecutions'],
    apply: (a) => each(a, 'AWS::Lambda::Function', '', (p) => (p.ReservedConcurrentExecutions = 0)),
  },
  {
    id: 'visibility-under-timeout',
    category: 'queue',
    description: "route queues' VisibilityTimeout 5 s under functions of 60 s",
    file: ONE,
    names: ['Route', 'VisibilityTimeout'],
    apply: (a) =>
      a
        .byType('AWS::SQS::Queue')
        .filter((q) => /^Route\w+Queue/.test(q.logicalId))
        .map((q) => (a.props(q).VisibilityTimeout = 5)).length,
  },
  {
    id: 'schedules-never',
    category: 'schedule',
    description: `every schedule set to never fire (${NEVER})`,
    file: ONE,
    names: ['Schedule', 'ScheduleExpression'],
    apply: (a) => each(a, 'AWS::Scheduler::Schedule', '', (p) => (p.ScheduleExpression = NEVER)),
  },
  {
    id: 'issue-slip-rule-source',
    category: 'rule',
    description: "the issue-slip rule's source misspelt",
    file: ONE,
    names: ['RoutetransferissueslipRule', 'EventPattern'],
    apply: (a) =>
      each(
        a,
        'AWS::Events::Rule',
        'RoutetransferissueslipRule',
        (p) => (p.EventPattern.source = ['acounting.default']),
      ),
  },
  {
    id: 'rule-other-account',
    category: 'rule',
    description: "the archive rule's pattern names another account",
    file: ONE,
    names: ['RoutearchiveisdocRule', 'EventPattern'],
    apply: (a) =>
      each(
        a,
        'AWS::Events::Rule',
        'RoutearchiveisdocRule',
        (p) => (p.EventPattern.account = ['222222222222']),
      ),
  },
  {
    id: 'outcomes-log-detail-type',
    category: 'rule',
    description: "the outcomes-log rule's detail-type broken",
    file: ONE,
    names: ['ActionOutcomesRule', 'EventPattern'],
    apply: (a) =>
      each(
        a,
        'AWS::Events::Rule',
        'ActionOutcomesRule',
        (p) => (p.EventPattern['detail-type'] = p.EventPattern['detail-type'].map((t: string) => `${t}x`)),
      ),
  },
  {
    id: 'http-payload-1.0',
    category: 'HTTP',
    description: "the intake integration's PayloadFormatVersion 1.0",
    file: ONE,
    names: ['OrderIntakeApi', 'PayloadFormatVersion'],
    apply: (a) =>
      each(a, 'AWS::ApiGatewayV2::Integration', 'OrderIntakeApi', (p) => (p.PayloadFormatVersion = '1.0')),
  },
  {
    id: 'http-stage-deleted',
    category: 'HTTP',
    description: "the intake API's stage deleted",
    file: ONE,
    names: ['OrderIntakeApi', 'Stage'],
    apply: (a) => removeResource(a, 'AWS::ApiGatewayV2::Stage'),
  },
  {
    id: 'runtime-nodejs12',
    category: 'runtime',
    description: 'Runtime nodejs12.x on every function',
    file: ONE,
    names: ['Function', 'Runtime'],
    apply: (a) => each(a, 'AWS::Lambda::Function', '', (p) => (p.Runtime = 'nodejs12.x')),
  },
  {
    id: 'roles-trust-ec2',
    category: 'role',
    description: 'function roles trusting ec2.amazonaws.com',
    file: ONE,
    names: ['Function', 'AssumeRolePolicyDocument'],
    apply: (a) => {
      let n = 0;
      for (const prefix of functionRolePrefixes(a))
        n += each(a, 'AWS::IAM::Role', prefix, (p) => {
          for (const s of p.AssumeRolePolicyDocument.Statement)
            s.Principal = { Service: 'ec2.amazonaws.com' };
        });
      return n;
    },
  },
  {
    id: 'roles-without-log-grants',
    category: 'logs',
    description: 'function roles without their log grants',
    file: ONE,
    names: ['Function', 'logs:CreateLogStream'],
    apply: (a) =>
      functionRolePrefixes(a).reduce(
        (n, prefix) => n + revokeFromRoles(a, prefix, (x) => x.startsWith('logs:')),
        0,
      ),
  },
  {
    id: 'delivery-retention-60',
    category: 'retention',
    description: 'delivery queues keeping messages 60 s against a backoff of 1 min doubling',
    file: ONE,
    names: ['Deliveries', 'MessageRetentionPeriod'],
    apply: (a) =>
      a
        .byType('AWS::SQS::Queue')
        .filter((q) => /^Deliveries\w+Queue/.test(q.logicalId))
        .map((q) => (a.props(q).MessageRetentionPeriod = 60)).length,
  },
  {
    id: 'dlq-policy-without-events',
    category: 'IAM',
    description: "the rule dead-letter queues' policies without the EventBridge statement",
    file: FAILURES,
    names: ['RoutearchiveisdocRule', 'DeadLetterConfig'],
    apply: (a) => {
      let n = 0;
      for (const rule of a.byType('AWS::Events::Rule')) {
        for (const t of a.props(rule).Targets ?? []) {
          const policy = t.DeadLetterConfig?.Arn ? a.resourcePolicy(t.DeadLetterConfig.Arn) : undefined;
          if (!policy) continue;
          const kept = policy.Statement.filter((s: Json) => s.Principal?.Service !== 'events.amazonaws.com');
          n += policy.Statement.length - kept.length;
          policy.Statement.splice(0, policy.Statement.length, ...kept);
        }
      }
      return n;
    },
  },
  {
    id: 'idempotency-expiry-removed',
    category: 'settings',
    description: 'ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS removed from every function',
    file: ONE,
    names: ['IdempotencyTable', 'ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS'],
    apply: (a) =>
      each(a, 'AWS::Lambda::Function', '', (p) => {
        if (p.Environment?.Variables) delete p.Environment.Variables.ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS;
      }),
  },
  {
    id: 'poller-grant-source-account',
    category: 'IAM',
    description: "the poller's grants conditioned on aws:SourceAccount",
    file: ONE,
    names: ['Poller', 'aws:SourceAccount'],
    apply: (a) => {
      const role = a.byType('AWS::IAM::Role').find((r) => r.logicalId.startsWith('PollerRole'));
      let n = 0;
      for (const { policy } of a.identityPolicies(role?.attributes.Arn as string))
        for (const s of policy.Statement) {
          s.Condition = {
            ...s.Condition,
            StringEquals: { ...s.Condition?.StringEquals, 'aws:SourceAccount': '111111111111' },
          };
          n++;
        }
      return n;
    },
  },
  {
    id: 'putevents-star',
    category: 'IAM',
    description: 'the poller may PutEvents on Resource "*" with no condition',
    file: ONE,
    names: ['Poller', 'events:PutEvents'],
    apply: (a) => {
      const role = a.byType('AWS::IAM::Role').find((r) => r.logicalId.startsWith('PollerRole'));
      let n = 0;
      for (const { policy } of a.identityPolicies(role?.attributes.Arn as string))
        for (const s of policy.Statement)
          if ([s.Action].flat().includes('events:PutEvents')) {
            s.Resource = '*';
            delete s.Condition;
            n++;
          }
      return n;
    },
  },
  // ---- more, by category ---------------------------------------------------------------------
  {
    id: 'trigger-batch-20-no-window',
    category: 'trigger',
    description: 'the archive trigger takes 20 messages without a batching window',
    file: ONE,
    names: ['RoutearchiveisdocFunctionSqsEventSource', 'MaximumBatchingWindowInSeconds'],
    apply: (a) =>
      each(a, 'AWS::Lambda::EventSourceMapping', 'RoutearchiveisdocFunction', (p) => (p.BatchSize = 20)),
  },
  {
    id: 'trigger-concurrency-1001',
    category: 'trigger',
    description: "the delivery trigger's MaximumConcurrency 1001",
    file: ONE,
    names: ['DeliveriesFunctionSqsEventSource', 'MaximumConcurrency'],
    apply: (a) =>
      each(
        a,
        'AWS::Lambda::EventSourceMapping',
        'DeliveriesFunction',
        (p) => (p.ScalingConfig = { MaximumConcurrency: 1001 }),
      ),
  },
  {
    id: 'trigger-no-partial-batch',
    category: 'trigger',
    description: 'the delivery trigger without ReportBatchItemFailures',
    file: ONE,
    names: ['DeliveriesFunctionSqsEventSource', 'FunctionResponseTypes'],
    apply: (a) =>
      each(a, 'AWS::Lambda::EventSourceMapping', 'DeliveriesFunction', (p) => (p.FunctionResponseTypes = [])),
  },
  {
    id: 'schedule-disabled',
    category: 'schedule',
    description: "the poller's schedule State DISABLED",
    file: ONE,
    names: ['PollSchedule', 'State'],
    apply: (a) => each(a, 'AWS::Scheduler::Schedule', 'PollSchedule', (p) => (p.State = 'DISABLED')),
  },
  {
    id: 'schedule-without-dlq',
    category: 'schedule',
    description: "the poller's schedule without its DeadLetterConfig",
    file: FAILURES,
    names: ['PollSchedule', 'DeadLetterConfig'],
    apply: (a) =>
      each(a, 'AWS::Scheduler::Schedule', 'PollSchedule', (p) => delete p.Target.DeadLetterConfig),
  },
  {
    id: 'scheduler-role-without-dlq-grant',
    category: 'IAM',
    description: "the Scheduler roles without sqs:SendMessage on the schedules' dead-letter queue",
    file: FAILURES,
    names: ['PollSchedule', 'DeadLetterConfig'],
    apply: (a) => revokeFromRoles(a, 'SchedulerRoleForTarget', (x) => x === 'sqs:SendMessage'),
  },
  {
    id: 'scheduler-role-without-invoke',
    category: 'IAM',
    description: 'the Scheduler roles without lambda:InvokeFunction',
    file: ONE,
    names: ['SchedulerRoleForTarget', 'lambda:InvokeFunction'],
    apply: (a) => revokeFromRoles(a, 'SchedulerRoleForTarget', (x) => x === 'lambda:InvokeFunction'),
  },
  {
    id: 'scheduler-role-trusts-events',
    category: 'role',
    description: 'the Scheduler roles trusting events.amazonaws.com',
    file: ONE,
    names: ['SchedulerRoleForTarget', 'AssumeRolePolicyDocument'],
    apply: (a) =>
      each(a, 'AWS::IAM::Role', 'SchedulerRoleForTarget', (p) => {
        for (const s of p.AssumeRolePolicyDocument.Statement)
          s.Principal = { Service: 'events.amazonaws.com' };
      }),
  },
  {
    id: 'rule-disabled',
    category: 'rule',
    description: 'the order-transfer rule State DISABLED',
    file: ONE,
    names: ['RoutetransferreceivedorderRule', 'State'],
    apply: (a) =>
      each(a, 'AWS::Events::Rule', 'RoutetransferreceivedorderRule', (p) => (p.State = 'DISABLED')),
  },
  {
    id: 'rule-target-without-dlq',
    category: 'rule',
    description: "the archive rule's target without its DeadLetterConfig",
    file: FAILURES,
    names: ['RoutearchiveisdocRule', 'DeadLetterConfig'],
    apply: (a) =>
      each(a, 'AWS::Events::Rule', 'RoutearchiveisdocRule', (p) => {
        for (const t of p.Targets) delete t.DeadLetterConfig;
      }),
  },
  {
    id: 'queue-policy-other-rule',
    category: 'IAM',
    description: "the e-invoice queue's policy admits another rule (aws:SourceArn)",
    file: ONE,
    names: ['RoutesendeinvoiceQueue', 'aws:SourceArn'],
    apply: (a) => {
      const queue = a.byType('AWS::SQS::Queue').find((q) => q.logicalId.startsWith('RoutesendeinvoiceQueue'));
      const policy = a.resourcePolicy(queue?.attributes.Arn as string);
      let n = 0;
      for (const s of policy?.Statement ?? [])
        if (s.Condition?.ArnEquals?.['aws:SourceArn']) {
          s.Condition.ArnEquals['aws:SourceArn'] =
            'arn:aws:events:eu-central-1:111111111111:rule/other/other';
          n++;
        }
      return n;
    },
  },
  {
    id: 'dlq-retention-60',
    category: 'retention',
    description: "the issue-slip route's dead-letter queue keeping messages 60 s",
    file: FAILURES,
    names: ['RoutetransferissueslipDlq', 'MessageRetentionPeriod'],
    apply: (a) =>
      each(a, 'AWS::SQS::Queue', 'RoutetransferissueslipDlq', (p) => (p.MessageRetentionPeriod = 60)),
  },
  {
    id: 'queue-retention-30',
    category: 'retention',
    description: "a route queue's MessageRetentionPeriod 30 s (SQS's minimum is 60)",
    file: ONE,
    names: ['RoutearchiveisdocQueue', 'MessageRetentionPeriod'],
    apply: (a) =>
      each(a, 'AWS::SQS::Queue', 'RoutearchiveisdocQueue', (p) => (p.MessageRetentionPeriod = 30)),
  },
  {
    id: 'queue-delay-901',
    category: 'queue',
    description: "a route queue's DelaySeconds 901 (SQS's maximum is 900)",
    file: ONE,
    names: ['RoutearchiveisdocQueue', 'DelaySeconds'],
    apply: (a) => each(a, 'AWS::SQS::Queue', 'RoutearchiveisdocQueue', (p) => (p.DelaySeconds = 901)),
  },
  {
    id: 'http-stage-named',
    category: 'HTTP',
    description: "the intake API's stage named prod instead of $default",
    file: ONE,
    names: ['OrderIntakeApi', 'StageName'],
    apply: (a) => each(a, 'AWS::ApiGatewayV2::Stage', 'OrderIntake', (p) => (p.StageName = 'prod')),
  },
  {
    id: 'http-permission-removed',
    category: 'HTTP',
    description: "the intake function's permission for API Gateway removed",
    file: ONE,
    names: ['OrderIntakeReceiverFunction', 'lambda:InvokeFunction'],
    apply: (a) => {
      const fn = a.byType('AWS::Lambda::Function').find((f) => f.logicalId.startsWith('OrderIntakeReceiver'));
      const policy = a.resourcePolicy(fn?.attributes.Arn as string);
      const n = policy?.Statement.length ?? 0;
      policy?.Statement.splice(0);
      return n;
    },
  },
  {
    id: 'function-timeout-1',
    category: 'runtime',
    description: 'a function timeout of 1 s on every function',
    file: ONE,
    names: ['Function', 'Timeout'],
    apply: (a) => each(a, 'AWS::Lambda::Function', '', (p) => (p.Timeout = 1)),
  },
  {
    id: 'architecture-unknown',
    category: 'runtime',
    description: 'Architectures ppc64 on every function',
    file: ONE,
    names: ['Function', 'Architectures'],
    apply: (a) => each(a, 'AWS::Lambda::Function', '', (p) => (p.Architectures = ['ppc64'])),
  },
  {
    id: 'functions-without-log-group',
    category: 'logs',
    description:
      'functions without their LoggingConfig (logs to /aws/lambda/<name>, which the template does not hold)',
    file: ONE,
    names: ['Function', 'LoggingConfig'],
    apply: (a) => each(a, 'AWS::Lambda::Function', '', (p) => delete p.LoggingConfig),
  },
  {
    id: 'log-retention-45',
    category: 'logs',
    description: 'log groups with RetentionInDays 45 (not a CloudWatch Logs retention)',
    file: ONE,
    names: ['Logs', 'RetentionInDays'],
    apply: (a) => each(a, 'AWS::Logs::LogGroup', '', (p) => (p.RetentionInDays = 45)),
  },
  {
    id: 'archive-without-putobject',
    category: 'IAM',
    description: 'the archive role without s3:PutObject',
    file: ONE,
    names: ['Routearchiveisdoc', 's3:PutObject'],
    apply: (a) => revokeFromRoles(a, 'RoutearchiveisdocRole', (x) => x === 's3:PutObject'),
  },
  {
    id: 'archive-bucket-without-events',
    category: 'trigger',
    description:
      'the archive bucket sends no events to EventBridge (statements dropped there are never imported)',
    file: ONE,
    names: ['ArchiveBucket', 'EventBridgeConfiguration'],
    apply: (a) => each(a, 'AWS::S3::Bucket', 'ArchiveBucket', (p) => delete p.NotificationConfiguration),
  },
  {
    id: 'statements-rule-other-prefix',
    category: 'rule',
    description: "the bank statements rule's key prefix misspelt",
    file: ONE,
    names: ['BankStatementsRule', 'EventPattern'],
    apply: (a) =>
      each(
        a,
        'AWS::Events::Rule',
        'BankStatementsRule',
        (p) => (p.EventPattern.detail.object.key = [{ prefix: 'bank-statement/' }]),
      ),
  },
  {
    id: 'statements-without-getobject',
    category: 'IAM',
    description: 'the bank statements function role without s3:GetObject',
    file: ONE,
    names: ['BankStatements', 's3:GetObject'],
    apply: (a) => revokeFromRoles(a, 'BankStatementsFunction', (x) => x === 's3:GetObject'),
  },
  {
    id: 'poller-without-secret',
    category: 'IAM',
    description: 'the poller role without secretsmanager:GetSecretValue',
    file: ONE,
    names: ['Poller', 'secretsmanager:GetSecretValue'],
    apply: (a) => revokeFromRoles(a, 'PollerRole', (x) => x === 'secretsmanager:GetSecretValue'),
  },
];
