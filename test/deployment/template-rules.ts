/**
 * What CloudFormation and the services refuse at deployment, checked on the synthesized
 * templates before anything runs: each refusal names the resource, the property and the rule
 * (value ranges of Lambda, SQS, EventBridge and Scheduler; a Lambda trigger's visibility timeout
 * under its function's timeout; runtimes and architectures; a function role Lambda may not assume).
 * A template with a refusal does not deploy, as on AWS.
 */
import type { Assembly, Json, Resource } from './assembly.js';
import type { Authorizer } from './iam.js';
import { checkPattern } from './rule-pattern.js';
import { scheduleTimes } from './schedule-expression.js';

export class TemplateRefusedError extends Error {
  override readonly name = 'TemplateRefusedError';
}

/** The Node.js runtimes Lambda creates functions on (older ones are deprecated: creation is blocked). */
export const NODE_RUNTIMES = ['nodejs22.x', 'nodejs24.x'];
const ARCHITECTURES = ['x86_64', 'arm64'];
const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];

type Refuse = (r: Resource, property: string, why: string) => void;

const inRange = (v: unknown, min: number, max: number) =>
  Number.isInteger(Number(v)) && Number(v) >= min && Number(v) <= max;

function functions(a: Assembly, refuse: Refuse): void {
  for (const fn of a.byType('AWS::Lambda::Function')) {
    const p = a.props(fn);
    if (!NODE_RUNTIMES.includes(p.Runtime))
      refuse(
        fn,
        'Runtime',
        `${p.Runtime} is not a runtime Lambda creates functions on here (${NODE_RUNTIMES.join(', ')})`,
      );
    const arch = p.Architectures ?? ['x86_64'];
    if (!Array.isArray(arch) || arch.length !== 1 || !ARCHITECTURES.includes(arch[0]))
      refuse(fn, 'Architectures', `${JSON.stringify(arch)}: exactly one of ${ARCHITECTURES.join(', ')}`);
    if (!inRange(p.Timeout ?? 3, 1, 900)) refuse(fn, 'Timeout', `${p.Timeout} outside 1-900 s`);
    if (!inRange(p.MemorySize ?? 128, 128, 10_240))
      refuse(fn, 'MemorySize', `${p.MemorySize} outside 128-10240 MB`);
    if (p.ReservedConcurrentExecutions !== undefined && !inRange(p.ReservedConcurrentExecutions, 0, 1000))
      refuse(fn, 'ReservedConcurrentExecutions', `${p.ReservedConcurrentExecutions} outside 0-1000`);
  }
}

function triggers(a: Assembly, refuse: Refuse): void {
  for (const m of a.byType('AWS::Lambda::EventSourceMapping')) {
    const p = a.props(m);
    const queue = a.byRefOrArn(p.EventSourceArn);
    const fn = a.byRefOrArn(p.FunctionName);
    if (queue?.type !== 'AWS::SQS::Queue') {
      refuse(m, 'EventSourceArn', `${p.EventSourceArn} is not a queue of the template`);
      continue;
    }
    if (!fn) refuse(m, 'FunctionName', `${p.FunctionName} is not a function of the template`);
    const q = a.props(queue);
    const fifo = q.FifoQueue === true || q.FifoQueue === 'true';
    const batch = Number(p.BatchSize ?? 10);
    const window = p.MaximumBatchingWindowInSeconds;
    if (!inRange(batch, 1, fifo ? 10 : 10_000))
      refuse(
        m,
        'BatchSize',
        `${batch} outside 1-${fifo ? 10 : 10_000} for a ${fifo ? 'FIFO' : 'standard'} queue`,
      );
    if (window !== undefined && (fifo || !inRange(window, 0, 300)))
      refuse(
        m,
        'MaximumBatchingWindowInSeconds',
        fifo ? 'not supported on a FIFO queue' : `${window} outside 0-300 s`,
      );
    if (batch > 10 && !(Number(window) >= 1))
      refuse(
        m,
        'MaximumBatchingWindowInSeconds',
        `a BatchSize of ${batch} (over 10) needs a batching window of at least 1 s`,
      );
    const concurrency = p.ScalingConfig?.MaximumConcurrency;
    if (concurrency !== undefined && !inRange(concurrency, 2, 1000))
      refuse(m, 'ScalingConfig.MaximumConcurrency', `${concurrency} outside 2-1000`);
    for (const t of p.FunctionResponseTypes ?? [])
      if (t !== 'ReportBatchItemFailures')
        refuse(m, 'FunctionResponseTypes', `${t} is not a response type of an SQS trigger`);
    if (
      p.Enabled !== undefined &&
      typeof p.Enabled !== 'boolean' &&
      !['true', 'false'].includes(String(p.Enabled))
    )
      refuse(m, 'Enabled', `${p.Enabled} is not a boolean`);
    const timeout = fn ? Number(a.props(fn).Timeout ?? 3) : 0;
    const visibility = Number(q.VisibilityTimeout ?? 30);
    if (visibility < timeout)
      refuse(
        m,
        'EventSourceArn',
        `queue ${queue.logicalId} VisibilityTimeout ${visibility} s is less than function ${fn?.logicalId} Timeout ${timeout} s (Lambda refuses the trigger)`,
      );
  }
}

function queues(a: Assembly, refuse: Refuse): void {
  for (const queue of a.byType('AWS::SQS::Queue')) {
    const q = a.props(queue);
    if (q.VisibilityTimeout !== undefined && !inRange(q.VisibilityTimeout, 0, 43_200))
      refuse(queue, 'VisibilityTimeout', `${q.VisibilityTimeout} outside 0-43200 s`);
    if (q.MessageRetentionPeriod !== undefined && !inRange(q.MessageRetentionPeriod, 60, 1_209_600))
      refuse(queue, 'MessageRetentionPeriod', `${q.MessageRetentionPeriod} outside 60-1209600 s`);
    if (q.DelaySeconds !== undefined && !inRange(q.DelaySeconds, 0, 900))
      refuse(queue, 'DelaySeconds', `${q.DelaySeconds} outside 0-900 s`);
    const redrive = q.RedrivePolicy;
    if (redrive) {
      if (!inRange(redrive.maxReceiveCount, 1, 1000))
        refuse(queue, 'RedrivePolicy.maxReceiveCount', `${redrive.maxReceiveCount} outside 1-1000`);
      const dlq = a.byRefOrArn(redrive.deadLetterTargetArn);
      if (dlq?.type !== 'AWS::SQS::Queue')
        refuse(queue, 'RedrivePolicy.deadLetterTargetArn', 'not a queue of the template');
      else if (Boolean(a.props(dlq).FifoQueue) !== Boolean(q.FifoQueue))
        refuse(
          queue,
          'RedrivePolicy.deadLetterTargetArn',
          `${dlq.logicalId}: a FIFO queue's dead-letter queue is FIFO, a standard one's standard`,
        );
    }
  }
}

function retryAndDlq(a: Assembly, refuse: Refuse, r: Resource, path: string, target: Json): void {
  const retry = target.RetryPolicy;
  if (retry?.MaximumRetryAttempts !== undefined && !inRange(retry.MaximumRetryAttempts, 0, 185))
    refuse(r, `${path}.RetryPolicy.MaximumRetryAttempts`, `${retry.MaximumRetryAttempts} outside 0-185`);
  if (retry?.MaximumEventAgeInSeconds !== undefined && !inRange(retry.MaximumEventAgeInSeconds, 60, 86_400))
    refuse(
      r,
      `${path}.RetryPolicy.MaximumEventAgeInSeconds`,
      `${retry.MaximumEventAgeInSeconds} outside 60-86400 s`,
    );
  const dlq = target.DeadLetterConfig?.Arn;
  if (dlq !== undefined && a.byRefOrArn(dlq)?.type !== 'AWS::SQS::Queue')
    refuse(r, `${path}.DeadLetterConfig.Arn`, `${dlq} is not a queue of the template`);
}

function rulesAndSchedules(a: Assembly, refuse: Refuse): void {
  for (const rule of a.byType('AWS::Events::Rule')) {
    const p = a.props(rule);
    try {
      if (p.EventPattern) checkPattern(rule.logicalId, p.EventPattern);
      if (p.ScheduleExpression) scheduleTimes(rule.logicalId, p.ScheduleExpression, 0);
    } catch (error) {
      refuse(rule, p.EventPattern ? 'EventPattern' : 'ScheduleExpression', (error as Error).message);
    }
    if ((p.Targets ?? []).length > 5) refuse(rule, 'Targets', 'a rule has at most 5 targets');
    for (const [i, t] of (p.Targets ?? []).entries()) retryAndDlq(a, refuse, rule, `Targets[${i}]`, t);
  }
  for (const s of a.byType('AWS::Scheduler::Schedule')) {
    const p = a.props(s);
    try {
      scheduleTimes(s.logicalId, p.ScheduleExpression, 0, p.ScheduleExpressionTimezone);
    } catch (error) {
      refuse(s, 'ScheduleExpression', (error as Error).message);
    }
    const mode = p.FlexibleTimeWindow?.Mode;
    if (mode !== 'OFF' && mode !== 'FLEXIBLE')
      refuse(s, 'FlexibleTimeWindow.Mode', `${mode}: OFF or FLEXIBLE`);
    if (!p.Target?.RoleArn) refuse(s, 'Target.RoleArn', 'a schedule needs an execution role');
    retryAndDlq(a, refuse, s, 'Target', p.Target ?? {});
  }
}

function httpAndLogs(a: Assembly, refuse: Refuse): void {
  for (const i of a.byType('AWS::ApiGatewayV2::Integration')) {
    const p = a.props(i);
    if (p.IntegrationType === 'AWS_PROXY' && !['1.0', '2.0'].includes(p.PayloadFormatVersion))
      refuse(
        i,
        'PayloadFormatVersion',
        `${p.PayloadFormatVersion}: 1.0 or 2.0 for a Lambda proxy integration`,
      );
  }
  for (const g of a.byType('AWS::Logs::LogGroup')) {
    const p = a.props(g);
    if (p.RetentionInDays !== undefined && !LOG_RETENTION_DAYS.includes(Number(p.RetentionInDays)))
      refuse(g, 'RetentionInDays', `${p.RetentionInDays} is not one of CloudWatch Logs' retention periods`);
  }
}

/** Lambda refuses to create a function whose role does not trust `lambda.amazonaws.com`. */
async function functionRoles(a: Assembly, authorizer: Authorizer, refuse: Refuse): Promise<void> {
  for (const fn of a.byType('AWS::Lambda::Function')) {
    const roleArn = a.props(fn).Role;
    const role = a.byType('AWS::IAM::Role').find((r) => r.attributes.Arn === roleArn);
    if (!role) {
      refuse(fn, 'Role', `${roleArn} is not a role of the template`);
      continue;
    }
    const decision = await authorizer.assumeRole(
      'lambda.amazonaws.com',
      roleArn,
      `${fn.logicalId} (creation)`,
    );
    if (decision.decision !== 'Allowed')
      refuse(
        fn,
        'Role',
        `role ${role.logicalId} AssumeRolePolicyDocument does not let lambda.amazonaws.com assume it: the role defined for the function cannot be assumed by Lambda`,
      );
  }
}

/** Every refusal of the templates, one line each (`Resource Property: why`). */
export async function templateRefusals(a: Assembly, authorizer: Authorizer): Promise<string[]> {
  const out: string[] = [];
  const refuse: Refuse = (r, property, why) => out.push(`${r.logicalId} ${property}: ${why}`);
  functions(a, refuse);
  triggers(a, refuse);
  queues(a, refuse);
  rulesAndSchedules(a, refuse);
  httpAndLogs(a, refuse);
  await functionRoles(a, authorizer, refuse);
  return out;
}
