/**
 * A synthesized deployment running on this machine: the bundles of `cdk.out` in Lambda-like
 * workers, wired only by what the template says — schedules (Scheduler, through their role, when
 * due on the deployment's virtual clock) → functions; EventBridge rules → queues and log groups;
 * event source mappings (enabled or not, batch size and window, partial batch responses,
 * visibility, retention and redrive) → functions; the intake HTTP API (its stage and payload
 * format) → its function (through the function's resource policy) — with dynalite, s3rver and the
 * sandbox behind the AWS stand-in, and every call checked against IAM. A template AWS would refuse
 * does not deploy (./template-rules.ts).
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { type EmbeddedServers, startEmbeddedServers } from '#functions/adapters/local/embedded-servers.js';
import type { InfraConfigInput } from '#infra/config/schema.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '#sandbox/index.js';
import { ACCOUNT, type Assembly, type Json, REGION, type Resource, synthesize } from './assembly.js';
import { AwsStandIn } from './aws-stand-in.js';
import { type HttpCall, httpApi } from './http-api.js';
import { type Authorizer, createAuthorizer } from './iam.js';
import { createLambdaHost, type FunctionInfo, type InvokeResult, type LambdaHost } from './lambda-host.js';
import { mutate } from './mutations/apply.js';
import { RetryingDelivery } from './retrying-delivery.js';
import { type ScheduleTimes, scheduleTimes } from './schedule-expression.js';
import { Queues } from './sqs-queues.js';
import { TemplateRefusedError, templateRefusals } from './template-rules.js';
import { count, createUsage, type Usage } from './usage.js';
import { VirtualClock } from './virtual-clock.js';

export interface DeploymentOptions {
  /** The deployment's settings; a function of the sandbox when they name its data. */
  readonly config: Partial<InfraConfigInput> | ((sandbox: Sandbox) => Promise<Partial<InfraConfigInput>>);
  readonly sandbox?: Partial<SandboxOptions>;
  /** Changes the synthesized templates before anything runs (the grant-removal test). */
  readonly alter?: (assembly: Assembly) => void;
}

export interface Invocation {
  readonly fn: string;
  readonly trigger: string;
  readonly result: InvokeResult;
}

export interface Deployment {
  readonly assembly: Assembly;
  readonly standIn: AwsStandIn;
  readonly lambda: LambdaHost;
  readonly queues: Queues;
  readonly authorizer: Authorizer;
  readonly sandbox: Sandbox;
  readonly servers: EmbeddedServers;
  readonly invocations: Invocation[];
  readonly clock: VirtualClock;
  /** When the deployment was created (on its clock). */
  readonly startedAt: number;
  readonly usage: Usage;
  /**
   * Moves the clock to the next moment a schedule is due and fires every schedule due then, as
   * Scheduler would, then settles. Refuses when no schedule comes due within five years.
   */
  tick(): Promise<void>;
  /**
   * Moves the clock on by `ms` and fires each schedule that came due meanwhile once (runs that
   * fell due while the deployment was busy are one run, the latest), then settles.
   */
  advance(ms: number): Promise<void>;
  /** Runs the event source mappings until every queue is empty or only dead letters remain. */
  settle(): Promise<void>;
  /** A request to the HTTP API (the intake), as API Gateway would pass it on. */
  readonly http: HttpCall;
  fn(logicalIdPrefix: string): FunctionInfo;
  close(): Promise<void>;
}

async function createTables(assembly: Assembly, client: DynamoDBClient): Promise<void> {
  for (const table of assembly.byType('AWS::DynamoDB::Table')) {
    const p = assembly.props(table);
    await client.send(
      new CreateTableCommand({
        TableName: table.ref,
        KeySchema: p.KeySchema,
        AttributeDefinitions: p.AttributeDefinitions,
        BillingMode: 'PAY_PER_REQUEST',
        ...(p.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: p.GlobalSecondaryIndexes } : {}),
      }),
    );
  }
}

interface ScheduleState {
  readonly resource: Resource;
  readonly kind: 'scheduler' | 'rule';
  readonly times: ScheduleTimes;
  readonly enabled: boolean;
  lastFired?: number;
}

function schedulesOf(assembly: Assembly, createdAt: number): ScheduleState[] {
  const out: ScheduleState[] = [];
  for (const r of assembly.byType('AWS::Scheduler::Schedule')) {
    const p = assembly.props(r);
    out.push({
      resource: r,
      kind: 'scheduler',
      times: scheduleTimes(r.logicalId, p.ScheduleExpression, createdAt, p.ScheduleExpressionTimezone),
      enabled: p.State !== 'DISABLED',
    });
  }
  for (const r of assembly.byType('AWS::Events::Rule')) {
    const p = assembly.props(r);
    if (!p.ScheduleExpression) continue;
    out.push({
      resource: r,
      kind: 'rule',
      times: scheduleTimes(r.logicalId, p.ScheduleExpression, createdAt),
      enabled: p.State !== 'DISABLED',
    });
  }
  return out;
}

export async function deploy(options: DeploymentOptions): Promise<Deployment> {
  const clock = new VirtualClock();
  clock.install();
  const sandbox = await startSandbox({
    activity: { enabled: false },
    ...options.sandbox,
  } as Partial<SandboxOptions>);
  const servers = await startEmbeddedServers();
  const standIn = new AwsStandIn();
  await standIn.start();
  const assembly = synthesize({
    config: {
      accountingBaseUrl: sandbox.baseUrl,
      accountingAuthUrl: sandbox.authUrl,
      ...(typeof options.config === 'function' ? await options.config(sandbox) : options.config),
    },
    queueBase: standIn.url,
  });
  const cleanUp = async () => {
    await standIn.close();
    await servers.close();
    await sandbox.close();
    rmSync(assembly.outdir, { recursive: true, force: true });
    clock.uninstall();
  };
  const usage = createUsage();
  // The schedules are created with the stack: a rate's first run is due then.
  const createdAt = clock.now();
  let authorizer: Authorizer;
  let schedules: ScheduleState[];
  try {
    options.alter?.(assembly);
    mutate(assembly);
    authorizer = createAuthorizer(assembly);
    const refusals = await templateRefusals(assembly, authorizer);
    if (refusals.length > 0)
      throw new TemplateRefusedError(`the template would not deploy:\n${refusals.join('\n')}`);
    schedules = schedulesOf(assembly, createdAt);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const queues = new Queues(assembly, clock);
  standIn.configure({
    assembly,
    authorizer,
    queues,
    clock,
    usage,
    dynamoDbEndpoint: servers.dynamoDbEndpoint,
    s3Endpoint: servers.s3Endpoint,
  });
  await createTables(assembly, servers.dynamoDb);
  for (const bucket of assembly.byType('AWS::S3::Bucket')) {
    await servers.s3.send(new CreateBucketCommand({ Bucket: bucket.ref }));
  }
  const lambda = createLambdaHost(assembly, standIn.url, {
    clock,
    coldStart: async (fn) => {
      const assumed = await authorizer.assumeRole('lambda.amazonaws.com', fn.roleArn, fn.logicalId);
      if (assumed.decision !== 'Allowed') return assumed.reason;
      // The runtime writes the function's logs with its role, to the log group of its LoggingConfig.
      if (!assembly.byType('AWS::Logs::LogGroup').some((g) => g.ref === fn.logGroup))
        usage.findings.push(
          `${fn.logicalId} LoggingConfig.LogGroup ${fn.logGroup}: no such log group in the template, so its logs are lost`,
        );
      const stream = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${fn.logGroup}:log-stream:local`;
      for (const action of ['logs:CreateLogStream', 'logs:PutLogEvents'])
        await authorizer.authorize(standIn.principalOf(fn.logicalId), action, stream);
      return undefined;
    },
  });
  standIn.attach(lambda);
  const invocations: Invocation[] = [];

  const invoke = async (fn: FunctionInfo, event: unknown, trigger: string) => {
    const result = await lambda.invoke(fn, event);
    invocations.push({ fn: fn.logicalId, trigger, result });
    return result;
  };

  /** Async invocation (Scheduler, event rules): the function's EventInvokeConfig retries. */
  const invokeAsync = async (fn: FunctionInfo, event: unknown, trigger: string) => {
    const config = assembly
      .byType('AWS::Lambda::EventInvokeConfig')
      .map((r) => assembly.props(r))
      .find((p) => p.FunctionName === fn.name);
    const attempts = 1 + Number(config?.MaximumRetryAttempts ?? 2);
    for (let i = 0; i < attempts; i++) {
      const result = await invoke(fn, event, trigger);
      if (result.ok) return;
    }
  };

  const mappings = () =>
    assembly.byType('AWS::Lambda::EventSourceMapping').map((r) => {
      const p = assembly.props(r);
      return {
        id: r.logicalId,
        p,
        enabled: p.Enabled !== false && String(p.Enabled) !== 'false',
        fn: lambda.byArnOrName(p.FunctionName),
        queue: queues.get(p.EventSourceArn),
      };
    });
  /** When a mapping with a batching window next has a batch to take, if it is waiting for one. */
  const windowWakes = new Map<string, number>();

  const pollOnce = async (): Promise<boolean> => {
    let progressed = false;
    for (const { id, p, enabled, fn, queue } of mappings()) {
      if (!enabled) continue;
      const batchSize = Number(p.BatchSize ?? 10);
      const windowMs = 1000 * Number(p.MaximumBatchingWindowInSeconds ?? 0);
      if (windowMs > 0) {
        const visible = queues.visible(queue);
        if (visible.length === 0) continue;
        const oldest = Math.min(...visible.map((m) => m.visibleAt));
        if (visible.length < batchSize && clock.now() < oldest + windowMs) {
          windowWakes.set(id, oldest + windowMs);
          continue;
        }
        windowWakes.delete(id);
      }
      const batch = queues.receive(queue, batchSize);
      if (batch.length === 0) continue;
      progressed = true;
      // The mapping polls with the function's execution role.
      const role = standIn.principalOf(fn.logicalId);
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) {
        const decision = await authorizer.authorize(role, action, queue.arn);
        if (decision.decision !== 'Allowed') return progressed;
      }
      const event = {
        Records: batch.map((m) => ({
          messageId: m.messageId,
          receiptHandle: m.receiptHandle,
          body: m.body,
          attributes: {
            ApproximateReceiveCount: String(m.receiveCount),
            SentTimestamp: String(m.sentAt),
            SenderId: 'AROADEPLOYMENTTEST',
            ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt ?? m.sentAt),
            ...(m.groupId ? { MessageGroupId: m.groupId } : {}),
            ...(m.deduplicationId ? { MessageDeduplicationId: m.deduplicationId } : {}),
            ...(m.sequenceNumber ? { SequenceNumber: m.sequenceNumber } : {}),
          },
          messageAttributes: {},
          md5OfBody: m.md5OfBody,
          eventSource: 'aws:sqs',
          eventSourceARN: queue.arn,
          awsRegion: REGION,
        })),
      };
      count(usage.triggerInvocations, id);
      const result = await invoke(fn, event, `mapping ${id}`);
      if (!result.ok) continue; // the whole batch becomes visible again after the visibility timeout
      const failures = new Set(
        ((result.result as Json)?.batchItemFailures ?? []).map((f: Json) => f.itemIdentifier as string),
      );
      const reportsFailures = (p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures');
      if (failures.size > 0 && !reportsFailures)
        usage.findings.push(
          `${id} FunctionResponseTypes lacks ReportBatchItemFailures: ${fn.logicalId} reported ${failures.size} failed message(s), which SQS deletes with the batch`,
        );
      for (const m of batch) {
        if (reportsFailures && failures.has(m.messageId)) continue;
        queues.delete(queue, m.receiptHandle as string);
      }
    }
    return progressed;
  };

  // Scheduler's deliveries: its execution role invokes the function; a failure is retried by the
  // schedule's retry policy and dead-lettered with the same role.
  const scheduled = new RetryingDelivery(
    {
      authorizer,
      queues,
      clock,
      usage,
      deadLetterSender: (a) => ({
        who: standIn.rolePrincipal(`${a.source.logicalId} (scheduler role)`, a.target.RoleArn),
        context: {},
      }),
    },
    async (a) => {
      const fn = lambda.byArnOrName(a.target.Arn);
      // Scheduler assumes the role for the schedule's group: the trust policy's aws:SourceArn.
      const group = assembly.props(a.source).GroupName ?? 'default';
      const assumed = await authorizer.assumeRole(
        'scheduler.amazonaws.com',
        a.target.RoleArn,
        `${a.source.logicalId} (scheduler)`,
        { 'aws:SourceArn': `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/${group}` },
      );
      if (assumed.decision !== 'Allowed') return { ok: false, retryable: false, error: `${assumed.reason}` };
      const role = standIn.rolePrincipal(`${a.source.logicalId} (scheduler role)`, a.target.RoleArn);
      const decision = await authorizer.authorize(role, 'lambda:InvokeFunction', fn.arn);
      if (decision.decision !== 'Allowed')
        return { ok: false, retryable: false, error: `AccessDenied: ${decision.reason}` };
      if (standIn.faults.down.has(fn.arn))
        return { ok: false, retryable: true, error: `${fn.logicalId} is down (fault injected)` };
      standIn.asyncInvocations.push({
        functionArn: fn.arn,
        event: JSON.parse(a.body),
        trigger: `schedule ${a.source.logicalId}`,
      });
      return { ok: true };
    },
  );

  const fire = async (s: ScheduleState) => {
    s.lastFired = clock.now();
    count(usage.schedulesFired, s.resource.logicalId);
    const p = assembly.props(s.resource);
    const scheduledTime = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (s.kind === 'scheduler') {
      // Scheduler fills in its context attributes (scheduled time, execution id, …) in the input.
      const input = String(p.Target.Input ?? '{}')
        .replaceAll('<aws.scheduler.scheduled-time>', scheduledTime)
        .replaceAll('<aws.scheduler.execution-id>', randomUUID())
        .replaceAll('<aws.scheduler.attempt-number>', '1')
        .replaceAll('<aws.scheduler.schedule-arn>', s.resource.attributes.Arn as string);
      await scheduled.deliver(s.resource, 'Target', p.Target, input);
      return;
    }
    const ruleArn = s.resource.attributes.Arn as string;
    for (const [i, target] of (p.Targets ?? []).entries()) {
      const event = {
        version: '0',
        id: randomUUID(),
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account: ACCOUNT,
        time: scheduledTime,
        region: REGION,
        resources: [ruleArn],
        detail: {},
      };
      await standIn.ruleTargets.deliver(
        s.resource,
        `Targets[${i}]`,
        target,
        target.Input ?? JSON.stringify(event),
      );
    }
  };

  const settle = async () => {
    for (let rounds = 0; rounds < 10_000; rounds++) {
      if (await pollOnce()) continue;
      const pending = standIn.asyncInvocations.splice(0);
      if (pending.length > 0) {
        for (const p of pending)
          await invokeAsync(lambda.byArnOrName(p.functionArn), p.event, p.trigger ?? 'event rule');
        continue;
      }
      if ((await standIn.ruleTargets.runDue()) || (await scheduled.runDue())) continue;
      const read = new Set(
        mappings()
          .filter((m) => m.enabled)
          .map((m) => m.queue),
      );
      const times = [
        queues.nextVisibleAt([...read]),
        standIn.ruleTargets.nextDueAt(),
        scheduled.nextDueAt(),
        ...windowWakes.values(),
      ].filter((t): t is number => t !== undefined);
      if (times.length === 0) break;
      clock.advanceTo(Math.min(...times));
    }
    queues.expire();
  };

  const nextOf = (s: ScheduleState) => s.times.nextAfter(s.lastFired ?? createdAt - 1);
  const fireDue = async () => {
    const now = clock.now();
    for (const s of schedules) {
      const next = nextOf(s);
      if (s.enabled && next !== undefined && next <= now) await fire(s);
    }
  };

  const tick = async () => {
    const next = schedules
      .filter((s) => s.enabled)
      .map(nextOf)
      .filter((t): t is number => t !== undefined);
    if (next.length === 0) {
      const listed = schedules.map((s) => {
        const p = assembly.props(s.resource);
        return `${s.resource.logicalId} ScheduleExpression ${p.ScheduleExpression} State ${p.State ?? 'ENABLED'}`;
      });
      throw new Error(`no schedule of the template comes due within five years:\n${listed.join('\n')}`);
    }
    clock.advanceTo(Math.min(...next));
    await fireDue();
    await settle();
  };

  const advance = async (ms: number) => {
    clock.advanceBy(ms);
    await fireDue();
    await settle();
  };

  const http = httpApi(assembly, authorizer, standIn, lambda, invoke);

  return {
    assembly,
    standIn,
    lambda,
    queues,
    authorizer,
    sandbox,
    servers,
    invocations,
    clock,
    startedAt: createdAt,
    usage,
    tick,
    advance,
    settle,
    http,
    fn: (prefix) => {
      const found = lambda.functions.filter((f) => f.logicalId.startsWith(prefix));
      if (found.length !== 1) throw new Error(`${found.length} functions start with ${prefix}`);
      return found[0] as FunctionInfo;
    },
    async close() {
      await lambda.close();
      await cleanUp();
    },
  };
}
