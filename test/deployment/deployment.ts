/**
 * A synthesized deployment running on this machine: the bundles of `cdk.out` in Lambda-like
 * workers, wired only by what the template says — schedules (Scheduler, through their role) →
 * functions; EventBridge rules → queues; event source mappings (batch size, partial batch
 * responses, visibility and redrive) → functions; the intake HTTP API → its function (through
 * the function's resource policy) — with dynalite, s3rver and the sandbox behind the AWS stand-in,
 * and every call checked against IAM.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import {
  type EmbeddedServers,
  startEmbeddedServers,
} from '../../functions/adapters/local/embedded-servers.js';
import type { InfraConfigInput } from '../../infra/config/schema.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/index.js';
import { ACCOUNT, type Assembly, type Json, REGION, synthesize } from './assembly.js';
import { AwsStandIn } from './aws-stand-in.js';
import { type Authorizer, createAuthorizer } from './iam.js';
import { createLambdaHost, type FunctionInfo, type InvokeResult, type LambdaHost } from './lambda-host.js';
import { Queues } from './sqs-queues.js';

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
  /** Fires every schedule once, as its target's service would, then settles. */
  tick(): Promise<void>;
  /** Runs the event source mappings until every queue is empty or only dead letters remain. */
  settle(): Promise<void>;
  /** A request to the HTTP API (the intake), as API Gateway would pass it on. */
  http(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; body: string; error?: InvokeResult['error'] }>;
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

export async function deploy(options: DeploymentOptions): Promise<Deployment> {
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
  options.alter?.(assembly);
  const authorizer = createAuthorizer(assembly);
  const queues = new Queues(assembly);
  standIn.configure({
    assembly,
    authorizer,
    queues,
    dynamoDbEndpoint: servers.dynamoDbEndpoint,
    s3Endpoint: servers.s3Endpoint,
  });
  await createTables(assembly, servers.dynamoDb);
  for (const bucket of assembly.byType('AWS::S3::Bucket')) {
    await servers.s3.send(new CreateBucketCommand({ Bucket: bucket.ref }));
  }
  const lambda = createLambdaHost(assembly, standIn.url);
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
        fn: lambda.byArnOrName(p.FunctionName),
        queue: queues.get(p.EventSourceArn),
      };
    });

  const pollOnce = async (): Promise<boolean> => {
    let progressed = false;
    for (const { id, p, fn, queue } of mappings()) {
      const batch = queues.receive(queue, Number(p.BatchSize ?? 10));
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
      const result = await invoke(fn, event, `mapping ${id}`);
      if (!result.ok) continue; // the whole batch becomes visible again after the visibility timeout
      const failures = new Set(
        ((result.result as Json)?.batchItemFailures ?? []).map((f: Json) => f.itemIdentifier as string),
      );
      const reportsFailures = (p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures');
      for (const m of batch) {
        if (reportsFailures && failures.has(m.messageId)) continue;
        queues.delete(queue, m.receiptHandle as string);
      }
    }
    return progressed;
  };

  const settle = async () => {
    for (let rounds = 0; rounds < 10_000; rounds++) {
      if (await pollOnce()) continue;
      const pending = standIn.asyncInvocations.splice(0);
      if (pending.length > 0) {
        for (const p of pending) await invokeAsync(lambda.byArnOrName(p.functionArn), p.event, 'event rule');
        continue;
      }
      const next = queues.nextVisibleAt();
      const waiting = mappings().some(({ queue }) => queue.messages.length > 0);
      if (next === undefined || !waiting) return;
      queues.clock.advanceTo(next);
    }
    throw new Error('the deployment did not settle in 10,000 rounds');
  };

  const tick = async () => {
    for (const schedule of assembly.byType('AWS::Scheduler::Schedule')) {
      const p = assembly.props(schedule);
      if (p.State === 'DISABLED') continue;
      const role = standIn.rolePrincipal(`${schedule.logicalId} (scheduler role)`, p.Target.RoleArn);
      const fn = lambda.byArnOrName(p.Target.Arn);
      const decision = await authorizer.authorize(role, 'lambda:InvokeFunction', fn.arn);
      if (decision.decision !== 'Allowed') continue;
      // Scheduler fills in its context attributes (scheduled time, execution id, …) in the input.
      const input = String(p.Target.Input ?? '{}')
        .replaceAll('<aws.scheduler.scheduled-time>', new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'))
        .replaceAll('<aws.scheduler.execution-id>', randomUUID())
        .replaceAll('<aws.scheduler.attempt-number>', '1')
        .replaceAll('<aws.scheduler.schedule-arn>', schedule.attributes.Arn as string);
      const event = JSON.parse(input);
      await invokeAsync(fn, event, `schedule ${schedule.logicalId}`);
    }
    for (const rule of assembly.byType('AWS::Events::Rule')) {
      const p = assembly.props(rule);
      if (!p.ScheduleExpression || p.State === 'DISABLED') continue;
      const ruleArn = rule.attributes.Arn as string;
      for (const target of p.Targets ?? []) {
        const fn = lambda.byArnOrName(target.Arn);
        const decision = await authorizer.authorize(
          standIn.servicePrincipal('events.amazonaws.com'),
          'lambda:InvokeFunction',
          fn.arn,
          { 'aws:SourceArn': ruleArn },
        );
        if (decision.decision !== 'Allowed') continue;
        const event =
          target.Input !== undefined
            ? JSON.parse(target.Input)
            : {
                version: '0',
                id: randomUUID(),
                'detail-type': 'Scheduled Event',
                source: 'aws.events',
                account: ACCOUNT,
                time: new Date().toISOString(),
                region: REGION,
                resources: [ruleArn],
                detail: {},
              };
        await invokeAsync(fn, event, `schedule rule ${rule.logicalId}`);
      }
    }
    await settle();
  };

  const http: Deployment['http'] = async (method, path, headers, body) => {
    for (const route of assembly.byType('AWS::ApiGatewayV2::Route')) {
      const p = assembly.props(route);
      const [routeMethod, routePath] = String(p.RouteKey).split(' ') as [string, string];
      const names: string[] = [];
      const regex = new RegExp(
        `^${routePath.replace(/\{(\w+)\}/g, (_, n: string) => {
          names.push(n);
          return '([^/]+)';
        })}$`,
      );
      const url = new URL(path, 'https://api.local');
      const match = regex.exec(url.pathname);
      if (!match || (routeMethod !== 'ANY' && routeMethod !== method)) continue;
      const integrationId = String(p.Target).replace(/^integrations\//, '');
      const integration = assembly.props(assembly.resources.find((r) => r.ref === integrationId) as never);
      const fn = lambda.byArnOrName(integration.IntegrationUri);
      const apiId = p.ApiId;
      const sourceArn = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${apiId}/$default/${method}${routePath}`;
      const decision = await authorizer.authorize(
        standIn.servicePrincipal('apigateway.amazonaws.com'),
        'lambda:InvokeFunction',
        fn.arn,
        { 'aws:SourceArn': sourceArn },
      );
      if (decision.decision !== 'Allowed')
        return { status: 500, body: '{"message":"Internal Server Error"}' };
      const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
      const event = {
        version: '2.0',
        routeKey: p.RouteKey,
        rawPath: url.pathname,
        rawQueryString: url.search.slice(1),
        headers: {
          ...lower,
          'content-length': String(Buffer.byteLength(body)),
          host: `${apiId}.execute-api.${REGION}.amazonaws.com`,
        },
        requestContext: {
          accountId: ACCOUNT,
          apiId,
          domainName: `${apiId}.execute-api.${REGION}.amazonaws.com`,
          http: {
            method,
            path: url.pathname,
            protocol: 'HTTP/1.1',
            sourceIp: '127.0.0.1',
            userAgent: lower['user-agent'] ?? '',
          },
          requestId: randomUUID(),
          routeKey: p.RouteKey,
          stage: '$default',
          time: new Date().toUTCString(),
          timeEpoch: Date.now(),
        },
        pathParameters: Object.fromEntries(
          names.map((n, i) => [n, decodeURIComponent(match[i + 1] as string)]),
        ),
        body,
        isBase64Encoded: false,
      };
      const result = await invoke(fn, event, `http ${method} ${path}`);
      if (!result.ok)
        return {
          status: 500,
          body: '{"message":"Internal Server Error"}',
          ...(result.error ? { error: result.error } : {}),
        };
      const r = result.result as Json;
      if (r && typeof r === 'object' && 'statusCode' in r)
        return { status: r.statusCode, body: String(r.body ?? '') };
      return { status: 200, body: JSON.stringify(r) };
    }
    return { status: 404, body: '{"message":"Not Found"}' };
  };

  return {
    assembly,
    standIn,
    lambda,
    queues,
    authorizer,
    sandbox,
    servers,
    invocations,
    tick,
    settle,
    http,
    fn: (prefix) => {
      const found = lambda.functions.filter((f) => f.logicalId.startsWith(prefix));
      if (found.length !== 1) throw new Error(`${found.length} functions start with ${prefix}`);
      return found[0] as FunctionInfo;
    },
    async close() {
      await lambda.close();
      await standIn.close();
      await servers.close();
      await sandbox.close();
      rmSync(assembly.outdir, { recursive: true, force: true });
    },
  };
}
