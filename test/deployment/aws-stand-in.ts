/**
 * AWS as a deployed function meets it, on 127.0.0.1: one endpoint (`AWS_ENDPOINT_URL`) for every
 * SDK client. Each request is attributed to the calling function by the access key id of its
 * signature, decided by IAM (the function's role policies from the template and the resource's
 * policy), recorded, and only then served:
 *
 * - DynamoDB → dynalite (wire protocol passed through);
 * - S3 → s3rver (path-style), answering a missing key with 403 unless the caller may list the
 *   bucket without a prefix (as S3 does), with conditional writes (`If-None-Match`), which s3rver
 *   ignores, checked here, and the SDK's aws-chunked uploads decoded; a new object of a bucket
 *   whose template enables EventBridge notifications is an `Object Created` event on the default bus;
 * - EventBridge PutEvents → the template's rules (./rule-pattern.ts: the local bus's pattern
 *   semantics, the envelope's fields too, and a refusal of what it does not implement) → their
 *   targets: SQS queues (through the queue's resource policy for `events.amazonaws.com` with the
 *   rule as `aws:SourceArn`), CloudWatch Logs log groups (through the log resource policy), API
 *   destinations (through the target role, assumed by its trust policy); a failed delivery is
 *   retried by the target's retry policy and then dead-lettered (./retrying-delivery.ts);
 * - SQS (JSON protocol) → the queue model of ./sqs-queues.ts;
 * - Secrets Manager GetSecretValue → the secrets the test put;
 * - SSM GetParameter(s) and KMS Decrypt/Encrypt/GenerateDataKey → ./ssm-kms.ts.
 *
 * A call to any other service or operation answers an error and is recorded as unsupported, so a
 * function that calls something new fails the test instead of passing unseen.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventBridgeEvent } from '#functions/adapters/local/local-bus-types.js';
import { ACCOUNT, type Assembly, type Json, REGION } from './assembly.js';
import { jsonError, jsonOk } from './aws-wire.js';
import type { Authorizer, Principal } from './iam.js';
import { accessKeyOf, type LambdaHost } from './lambda-host.js';
import { type Attempt, type Outcome, RetryingDelivery } from './retrying-delivery.js';
import { matchesRule } from './rule-pattern.js';
import type { Queue, Queues } from './sqs-queues.js';
import { SsmAndKms } from './ssm-kms.js';
import { count, type Usage } from './usage.js';
import type { VirtualClock } from './virtual-clock.js';

export interface PublishedEvent {
  readonly caller: string;
  readonly event: EventBridgeEvent<Json>;
}

export interface Delivery {
  readonly target: string;
  readonly rule: string;
  readonly status: number;
  readonly event: PublishedEvent['event'];
}

export interface StandInDeps {
  readonly assembly: Assembly;
  readonly authorizer: Authorizer;
  readonly queues: Queues;
  readonly clock: VirtualClock;
  readonly usage: Usage;
  readonly dynamoDbEndpoint: string;
  readonly s3Endpoint: string;
}

/** Faults a test injects: targets (queue or function ARNs) that are down; callers whose AWS calls stall (ms). */
export interface Faults {
  readonly down: Set<string>;
  readonly stall: Map<string, number>;
}

export interface Secrets {
  put(nameOrArn: string, value: string): void;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** The SDK's `aws-chunked` upload body (signed or unsigned chunks, optional trailers) as plain bytes. */
export function decodeAwsChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('aws-chunked body: missing chunk header');
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1').split(';')[0] as string, 16);
    if (!Number.isFinite(size)) throw new Error('aws-chunked body: bad chunk size');
    at = lineEnd + 2;
    if (size === 0) break;
    parts.push(body.subarray(at, at + size));
    at += size + 2;
  }
  return Buffer.concat(parts);
}

/** SQS's MD5 of message attributes (name, type and value, length-prefixed, sorted by name). */
function md5OfAttributes(attributes: Record<string, Json>): string {
  const hash = createHash('md5');
  const lengthPrefixed = (b: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    hash.update(len);
    hash.update(b);
  };
  for (const name of Object.keys(attributes).sort()) {
    const a = attributes[name];
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(a.DataType, 'utf8'));
    if (a.BinaryValue !== undefined) {
      hash.update(Buffer.from([2]));
      lengthPrefixed(Buffer.from(a.BinaryValue, 'base64'));
    } else {
      hash.update(Buffer.from([1]));
      lengthPrefixed(Buffer.from(String(a.StringValue), 'utf8'));
    }
  }
  return hash.digest('hex');
}

const s3Error = (res: ServerResponse, status: number, code: string, message: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
};

export class AwsStandIn {
  /** Events the deployment's functions put on a bus. */
  readonly published: PublishedEvent[] = [];
  /** Events AWS services sent to the default bus (S3's `Object Created`). */
  readonly serviceEvents: PublishedEvent[] = [];
  readonly deliveries: Delivery[] = [];
  /** Calls to a service or operation this stand-in does not serve. */
  readonly unsupported: string[] = [];
  /** Lambda functions invoked asynchronously (Scheduler, an event rule target), run by the deployment. */
  readonly asyncInvocations: { functionArn: string; event: unknown; trigger?: string }[] = [];
  private server?: Server;
  private lambda?: LambdaHost;
  private readonly secrets = new Map<string, { arn: string; name: string; value: string }>();
  private readonly principals = new Map<string, Principal>();
  readonly faults: Faults = { down: new Set(), stall: new Map() };
  url = '';
  private depsValue?: StandInDeps;
  private ruleTargetsValue?: RetryingDelivery;
  private ssmKmsValue?: SsmAndKms;

  /** Rule deliveries: their retries and dead letters. */
  get ruleTargets(): RetryingDelivery {
    if (!this.ruleTargetsValue) throw new Error('the stand-in is not configured');
    return this.ruleTargetsValue;
  }

  get ssmAndKms(): SsmAndKms {
    if (!this.ssmKmsValue) throw new Error('the stand-in is not configured');
    return this.ssmKmsValue;
  }

  private get deps(): StandInDeps {
    if (!this.depsValue) throw new Error('the stand-in is not configured');
    return this.depsValue;
  }

  /** The assembly and the servers behind the stand-in; its secrets start as the template says. */
  configure(deps: StandInDeps): void {
    this.depsValue = deps;
    this.ruleTargetsValue = new RetryingDelivery(
      {
        ...deps,
        deadLetterSender: (a) => ({
          who: this.servicePrincipal('events.amazonaws.com'),
          context: { 'aws:SourceArn': a.source.attributes.Arn as string },
        }),
      },
      (a) => this.deliverToTarget(a),
    );
    this.ssmKmsValue = new SsmAndKms(deps.assembly, deps.authorizer, this.unsupported);
    for (const r of deps.assembly.byType('AWS::SecretsManager::Secret')) {
      const p = deps.assembly.props(r);
      const name = r.ref.split(':secret:')[1]?.replace(/-AbCdEf$/, '') as string;
      const value = p.SecretString ?? (p.GenerateSecretString ? randomUUID().replace(/-/g, '') : '');
      this.secrets.set(r.ref, { arn: r.ref, name, value });
    }
  }

  attach(lambda: LambdaHost): void {
    this.lambda = lambda;
  }

  readonly secretStore: Secrets = {
    put: (nameOrArn, value) => {
      const found = this.findSecret(nameOrArn);
      if (found) {
        found.value = value;
        return;
      }
      const arn = nameOrArn.startsWith('arn:')
        ? nameOrArn
        : `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${nameOrArn}-AbCdEf`;
      const name = arn.split(':secret:')[1]?.replace(/-[A-Za-z0-9]{6}$/, '') as string;
      this.secrets.set(arn, { arn, name, value });
    },
  };

  secretValue(nameOrArn: string): string | undefined {
    return this.findSecret(nameOrArn)?.value;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.unsupported.push(`stand-in error: ${(error as Error).stack ?? String(error)}`);
        if (!res.headersSent) jsonError(res, 500, 'InternalFailure', (error as Error).message);
        else res.end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The principal of a function's role, by its logical id. */
  principalOf(logicalId: string): Principal {
    let p = this.principals.get(logicalId);
    if (!p) {
      const fn = this.lambda?.byAccessKey(accessKeyOf(logicalId));
      if (!fn) throw new Error(`no function ${logicalId}`);
      p = {
        caller: logicalId,
        principal: fn.roleArn,
        policies: this.deps.assembly.identityPolicies(fn.roleArn),
      };
      this.principals.set(logicalId, p);
    }
    return p;
  }

  servicePrincipal(service: string): Principal {
    return { caller: service, principal: service, policies: [] };
  }

  rolePrincipal(caller: string, roleArn: string): Principal {
    return { caller, principal: roleArn, policies: this.deps.assembly.identityPolicies(roleArn) };
  }

  private findSecret(nameOrArn: string) {
    return (
      this.secrets.get(nameOrArn) ??
      [...this.secrets.values()].find(
        (s) => s.name === nameOrArn || nameOrArn.startsWith(`${s.arn.slice(0, -7)}`),
      )
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = req.headers.authorization ?? '';
    const credential = /Credential=([^/]+)\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(auth);
    const body = await readBody(req);
    if (!credential) {
      this.unsupported.push(`unsigned request ${req.method} ${req.url}`);
      return jsonError(res, 403, 'MissingAuthenticationTokenException', 'request is not signed');
    }
    const [, accessKey, service] = credential as unknown as [string, string, string];
    const fn = this.lambda?.byAccessKey(accessKey);
    if (!fn) {
      this.unsupported.push(`unknown caller ${accessKey} (${service})`);
      return jsonError(res, 403, 'UnrecognizedClientException', 'unknown access key');
    }
    const who = this.principalOf(fn.logicalId);
    const stall = this.faults.stall.get(fn.logicalId);
    if (stall) await new Promise((resolve) => setTimeout(resolve, stall));
    switch (service) {
      case 'dynamodb':
        return this.dynamoDb(who, req, body, res);
      case 's3':
        return this.s3(who, req, body, res);
      case 'events':
        return this.events(who, req, body, res);
      case 'sqs':
        return this.sqs(who, req, body, res);
      case 'secretsmanager':
        return this.secretsManager(who, req, body, res);
      case 'ssm':
      case 'kms':
        return this.ssmAndKms.handle(service, who, String(req.headers['x-amz-target'] ?? ''), body, res);
      default:
        this.unsupported.push(`${fn.logicalId} called ${service} ${req.headers['x-amz-target'] ?? req.url}`);
        return jsonError(res, 400, 'UnknownOperationException', `${service} is not served by the stand-in`);
    }
  }

  // ---- DynamoDB ---------------------------------------------------------------------------

  private async dynamoDb(who: Principal, req: IncomingMessage, body: Buffer, res: ServerResponse) {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.split('.')[1] ?? '';
    const input = JSON.parse(body.toString('utf8') || '{}') as Json;
    const tableArn = (name: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
    const resources: string[] = [];
    if (input.TableName)
      resources.push(tableArn(input.TableName) + (input.IndexName ? `/index/${input.IndexName}` : ''));
    for (const name of Object.keys(input.RequestItems ?? {})) resources.push(tableArn(name));
    for (const item of input.TransactItems ?? []) {
      for (const part of Object.values<Json>(item)) resources.push(tableArn(part.TableName));
    }
    if (resources.length === 0) {
      this.unsupported.push(`${who.caller} dynamodb ${operation} without a table`);
      return jsonError(res, 400, 'ValidationException', 'no table');
    }
    for (const resource of resources) {
      const decision = await this.deps.authorizer.authorize(who, `dynamodb:${operation}`, resource);
      if (decision.decision !== 'Allowed') {
        return jsonError(
          res,
          400,
          'com.amazonaws.dynamodb.v20120810#AccessDeniedException',
          `User: ${who.principal} is not authorized to perform: dynamodb:${operation} on resource: ${resource}`,
        );
      }
    }
    const upstream = await fetch(this.deps.dynamoDbEndpoint, {
      method: 'POST',
      headers: {
        'content-type': String(req.headers['content-type'] ?? 'application/x-amz-json-1.0'),
        'x-amz-target': target,
        authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        'x-amz-date': '20260101T000000Z',
      },
      body,
    });
    const text = Buffer.from(await upstream.arrayBuffer());
    const headers: Record<string, string> = {
      'content-type': upstream.headers.get('content-type') ?? 'application/x-amz-json-1.0',
    };
    const crc = upstream.headers.get('x-amz-crc32');
    if (crc) headers['x-amz-crc32'] = crc;
    res.writeHead(upstream.status, headers);
    res.end(text);
  }

  // ---- S3 ---------------------------------------------------------------------------------

  private async s3(who: Principal, req: IncomingMessage, rawBody: Buffer, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const [, bucket = '', ...keyParts] = url.pathname.split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const bucketArn = `arn:aws:s3:::${bucket}`;
    const objectArn = `${bucketArn}/${key}`;
    const checks: { action: string; resource: string; context?: Record<string, string | string[]> }[] = [];
    if (!key) {
      if (
        method === 'GET' &&
        (q.has('list-type') ||
          [...q.keys()].every((k) =>
            [
              'prefix',
              'delimiter',
              'max-keys',
              'continuation-token',
              'start-after',
              'encoding-type',
              'x-id',
            ].includes(k),
          ))
      ) {
        const context: Record<string, string> = {};
        if (q.has('prefix')) context['s3:prefix'] = q.get('prefix') as string;
        if (q.has('delimiter')) context['s3:delimiter'] = q.get('delimiter') as string;
        if (q.has('max-keys')) context['s3:max-keys'] = q.get('max-keys') as string;
        checks.push({ action: 's3:ListBucket', resource: bucketArn, context });
      } else if (method === 'HEAD') checks.push({ action: 's3:ListBucket', resource: bucketArn });
      else if (method === 'POST' && q.has('delete'))
        checks.push({ action: 's3:DeleteObject', resource: `${bucketArn}/*` });
    } else if (method === 'GET' || method === 'HEAD') {
      if (q.has('tagging')) checks.push({ action: 's3:GetObjectTagging', resource: objectArn });
      else
        checks.push({
          action: q.has('versionId') ? 's3:GetObjectVersion' : 's3:GetObject',
          resource: objectArn,
        });
    } else if (method === 'PUT') {
      if (q.has('tagging')) checks.push({ action: 's3:PutObjectTagging', resource: objectArn });
      else {
        checks.push({ action: 's3:PutObject', resource: objectArn });
        if (req.headers['x-amz-tagging']) checks.push({ action: 's3:PutObjectTagging', resource: objectArn });
        if (req.headers['x-amz-object-lock-mode'])
          checks.push({ action: 's3:PutObjectRetention', resource: objectArn });
        if (req.headers['x-amz-object-lock-legal-hold'])
          checks.push({ action: 's3:PutObjectLegalHold', resource: objectArn });
      }
    } else if (method === 'POST' && (q.has('uploads') || q.has('uploadId'))) {
      checks.push({ action: 's3:PutObject', resource: objectArn });
    } else if (method === 'DELETE') {
      checks.push({
        action: q.has('uploadId') ? 's3:AbortMultipartUpload' : 's3:DeleteObject',
        resource: objectArn,
      });
    }
    if (checks.length === 0) {
      this.unsupported.push(`${who.caller} s3 ${method} ${url.pathname}${url.search}`);
      return s3Error(res, 501, 'NotImplemented', 'not served by the stand-in');
    }
    for (const check of checks) {
      const decision = await this.deps.authorizer.authorize(
        who,
        check.action,
        check.resource,
        check.context,
        bucketArn,
      );
      if (decision.decision !== 'Allowed') return s3Error(res, 403, 'AccessDenied', 'Access Denied');
    }

    let body = rawBody;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (
        [
          'authorization',
          'host',
          'connection',
          'content-length',
          'x-amz-content-sha256',
          'x-amz-security-token',
          'x-amz-date',
          'transfer-encoding',
          'expect',
        ].includes(name)
      )
        continue;
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const chunked =
      String(req.headers['content-encoding'] ?? '').includes('aws-chunked') ||
      String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
    if (chunked) {
      body = decodeAwsChunked(rawBody);
      const encodings = String(headers['content-encoding'] ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e && e !== 'aws-chunked');
      if (encodings.length > 0) headers['content-encoding'] = encodings.join(',');
      else delete headers['content-encoding'];
      delete headers['x-amz-decoded-content-length'];
      delete headers['x-amz-trailer'];
    }
    for (const name of Object.keys(headers))
      if (name.startsWith('x-amz-checksum') || name === 'x-amz-sdk-checksum-algorithm') delete headers[name];

    const upstreamUrl = `${this.deps.s3Endpoint}${url.pathname}${url.search}`;
    // Conditional writes: S3 honours them, s3rver does not.
    if (method === 'PUT' && key && (req.headers['if-none-match'] || req.headers['if-match'])) {
      const head = await fetch(upstreamUrl.split('?')[0] as string, { method: 'HEAD' });
      const etag = head.headers.get('etag');
      if (req.headers['if-none-match'] === '*' && head.status === 200)
        return s3Error(
          res,
          412,
          'PreconditionFailed',
          'At least one of the pre-conditions you specified did not hold',
        );
      if (req.headers['if-match'] && (head.status !== 200 || etag !== req.headers['if-match'])) {
        return s3Error(
          res,
          head.status === 200 ? 412 : 404,
          head.status === 200 ? 'PreconditionFailed' : 'NoSuchKey',
          'precondition',
        );
      }
      delete headers['if-none-match'];
      delete headers['if-match'];
    }
    const upstream = await fetch(upstreamUrl, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
    });
    if ((method === 'GET' || method === 'HEAD') && key && upstream.status === 404) {
      // S3 tells "no such key" only to a caller that may list the bucket (no prefix on a GET or HEAD).
      const mayList = await this.deps.authorizer.probe(who, 's3:ListBucket', bucketArn);
      await upstream.arrayBuffer();
      if (mayList !== 'Allowed') {
        await this.deps.authorizer.authorize(who, 's3:ListBucket', bucketArn);
        return s3Error(res, 403, 'AccessDenied', 'Access Denied');
      }
      if (method === 'HEAD') {
        res.writeHead(404).end();
        return;
      }
      return s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    }
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!['content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
        out[name] = value;
    });
    const payload = Buffer.from(await upstream.arrayBuffer());
    if (method !== 'HEAD') out['content-length'] = String(payload.length);
    const created =
      upstream.ok &&
      key &&
      ((method === 'PUT' && !q.has('tagging') && !q.has('uploadId')) ||
        (method === 'POST' && q.has('uploadId')));
    if (created)
      await this.objectCreated(bucket, key, {
        size: body.length,
        reason: method === 'POST' ? 'CompleteMultipartUpload' : 'PutObject',
        requester: ACCOUNT,
      });
    res.writeHead(upstream.status, out);
    res.end(method === 'HEAD' ? undefined : payload);
  }

  /**
   * An object written by someone outside the deployment (a person, a bank's export) — as S3 does
   * it: stored, then its `Object Created` event when the bucket sends events to EventBridge.
   */
  async putObjectFromOutside(bucket: string, key: string, body: Uint8Array): Promise<void> {
    const url = `${this.deps.s3Endpoint}/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
    const upstream = await fetch(url, { method: 'PUT', body });
    if (!upstream.ok) throw new Error(`s3 PUT ${bucket}/${key}: ${upstream.status} ${await upstream.text()}`);
    await upstream.arrayBuffer().catch(() => undefined);
    await this.objectCreated(bucket, key, {
      size: body.length,
      reason: 'PutObject',
      requester: '123456789012',
    });
  }

  /**
   * S3's EventBridge notification of a new object: sent to the default bus only when the bucket's
   * template says `NotificationConfiguration.EventBridgeConfiguration.EventBridgeEnabled`.
   */
  private async objectCreated(
    bucket: string,
    key: string,
    object: { size: number; reason: string; requester: string },
  ): Promise<void> {
    const resource = this.deps.assembly.byType('AWS::S3::Bucket').find((b) => b.ref === bucket);
    const config = resource && this.deps.assembly.props(resource).NotificationConfiguration;
    const enabled = config?.EventBridgeConfiguration?.EventBridgeEnabled;
    if (enabled !== true && String(enabled) !== 'true') return;
    const event: PublishedEvent['event'] = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Object Created',
      source: 'aws.s3',
      account: ACCOUNT,
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: REGION,
      resources: [`arn:aws:s3:::${bucket}`],
      detail: {
        version: '0',
        bucket: { name: bucket },
        object: { key, size: object.size, sequencer: Date.now().toString(16).toUpperCase() },
        'request-id': randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase(),
        requester: object.requester,
        'source-ip-address': '127.0.0.1',
        reason: object.reason,
      },
    };
    this.serviceEvents.push({ caller: 's3.amazonaws.com', event });
    await this.route(this.busArn(undefined), event);
  }

  // ---- EventBridge ------------------------------------------------------------------------

  private async events(who: Principal, req: IncomingMessage, body: Buffer, res: ServerResponse) {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1];
    if (operation !== 'PutEvents') {
      this.unsupported.push(`${who.caller} events ${operation}`);
      return jsonError(res, 400, 'UnknownOperationException', `events ${operation}`);
    }
    const input = JSON.parse(body.toString('utf8')) as { Entries: Json[] };
    for (const entry of input.Entries) {
      const bus = this.busArn(entry.EventBusName);
      const decision = await this.deps.authorizer.authorize(who, 'events:PutEvents', bus, {
        'events:source': [entry.Source],
        'events:detail-type': [entry.DetailType],
      });
      if (decision.decision !== 'Allowed') {
        return jsonError(
          res,
          400,
          'AccessDeniedException',
          `User: ${who.principal} is not authorized to perform: events:PutEvents on resource: ${bus}`,
        );
      }
    }
    const entries: { EventId: string }[] = [];
    for (const entry of input.Entries) {
      const event: PublishedEvent['event'] = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: ACCOUNT,
        time: entry.Time
          ? new Date(entry.Time * (entry.Time < 1e12 ? 1000 : 1)).toISOString().replace(/\.\d{3}Z$/, 'Z')
          : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: REGION,
        resources: entry.Resources ?? [],
        detail: JSON.parse(entry.Detail),
      };
      this.published.push({ caller: who.caller, event });
      entries.push({ EventId: event.id });
      await this.route(this.busArn(entry.EventBusName), event);
    }
    jsonOk(res, { FailedEntryCount: 0, Entries: entries });
  }

  private busArn(nameOrArn: string | undefined): string {
    const name = nameOrArn ?? 'default';
    return name.startsWith('arn:') ? name : `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${name}`;
  }

  /**
   * `StartReplay` as EventBridge runs it: the archive's events whose `time` falls in
   * [start, end) go back on its bus with `replay-name` added, through every rule of the bus, or
   * only the rules `filterArns` names. The destination must be the archive's own bus. Returns how
   * many events were replayed.
   */
  async replay(input: {
    name: string;
    archiveArn: string;
    start: Date;
    end: Date;
    destination: string;
    filterArns?: readonly string[];
  }): Promise<number> {
    const archive = this.deps.assembly.byRefOrArn(input.archiveArn);
    if (archive?.type !== 'AWS::Events::Archive') throw new Error(`no archive ${input.archiveArn}`);
    const source = String(this.deps.assembly.props(archive).SourceArn);
    if (input.destination !== source)
      throw new Error(`a replay goes to its archive's bus ${source}, not ${input.destination}`);
    const due = (this.archived.get(input.archiveArn) ?? []).filter((e) => {
      const t = Date.parse(e.time);
      return t >= input.start.getTime() && t < input.end.getTime();
    });
    const only = input.filterArns ? new Set(input.filterArns) : undefined;
    for (const event of due) {
      const replayed = { ...event, 'replay-name': input.name } as PublishedEvent['event'];
      await this.route(source, replayed, only);
    }
    return due.length;
  }

  /** What each archive of the template took (its bus, its pattern), by archive ARN; a replayed event is not archived again. */
  readonly archived = new Map<string, PublishedEvent['event'][]>();

  private archive(busArn: string, event: PublishedEvent['event']): void {
    if ('replay-name' in event) return;
    const { assembly } = this.deps;
    for (const archive of assembly.byType('AWS::Events::Archive')) {
      const p = assembly.props(archive);
      if (String(p.SourceArn) !== busArn) continue;
      if (p.EventPattern && !matchesRule(archive.logicalId, p.EventPattern, event)) continue;
      const arn = archive.attributes.Arn as string;
      this.archived.set(arn, [...(this.archived.get(arn) ?? []), event]);
    }
  }

  /**
   * The template's archives and rules on this bus, each matched (refusing what the matcher does not
   * implement) and delivered; with `onlyRules` (a replay's `FilterArns`) those rules alone.
   */
  private async route(
    busArn: string,
    event: PublishedEvent['event'],
    onlyRules?: ReadonlySet<string>,
  ): Promise<void> {
    const { assembly } = this.deps;
    this.archive(busArn, event);
    for (const rule of assembly.byType('AWS::Events::Rule')) {
      const p = assembly.props(rule);
      if (this.busArn(p.EventBusName) !== busArn || p.State === 'DISABLED' || !p.EventPattern) continue;
      if (onlyRules && !onlyRules.has(rule.attributes.Arn as string)) continue;
      if (!matchesRule(rule.logicalId, p.EventPattern, event)) continue;
      count(this.deps.usage.ruleMatches, rule.logicalId);
      for (const [i, target] of (p.Targets ?? []).entries()) {
        const input = target.Input ?? (target.InputPath ? undefined : JSON.stringify(event));
        if (input === undefined) {
          this.unsupported.push(`rule ${rule.logicalId} Targets[${i}]: InputPath is not modelled`);
          continue;
        }
        await this.ruleTargets.deliver(rule, `Targets[${i}]`, target, input);
      }
    }
  }

  /** One attempt of a rule's delivery to its target (the retries and the DLQ are the caller's). */
  private async deliverToTarget(a: Attempt): Promise<Outcome> {
    const { authorizer, queues } = this.deps;
    const arn = String(a.target.Arn);
    const ruleArn = a.source.attributes.Arn as string;
    const event = JSON.parse(a.body);
    const events = this.servicePrincipal('events.amazonaws.com');
    if (this.faults.down.has(arn))
      return { ok: false, retryable: true, error: `${arn} is down (fault injected)` };
    if (arn.startsWith('arn:aws:sqs:')) {
      const decision = await authorizer.authorize(events, 'sqs:SendMessage', arn, {
        'aws:SourceArn': ruleArn,
      });
      if (decision.decision !== 'Allowed')
        return { ok: false, retryable: false, error: `AccessDenied: ${decision.reason}` };
      queues.send(queues.get(arn), a.body, {
        ...(a.target.SqsParameters?.MessageGroupId
          ? { groupId: a.target.SqsParameters.MessageGroupId, deduplicationId: event.id }
          : {}),
      });
      this.deliveries.push({ target: arn, rule: a.source.logicalId, status: 200, event });
      return { ok: true };
    }
    if (arn.startsWith('arn:aws:logs:')) {
      const logGroupArn = arn.replace(/:\*$/, '');
      const stream = `${logGroupArn}:log-stream:rule`;
      const create = await authorizer.authorize(events, 'logs:CreateLogStream', stream, {}, logGroupArn);
      const put = await authorizer.authorize(
        events,
        'logs:PutLogEvents',
        stream,
        { 'aws:SourceArn': ruleArn },
        logGroupArn,
      );
      const ok = create.decision === 'Allowed' && put.decision === 'Allowed';
      this.deliveries.push({ target: arn, rule: a.source.logicalId, status: ok ? 200 : 403, event });
      return ok
        ? { ok: true }
        : { ok: false, retryable: false, error: `AccessDenied: ${create.reason ?? put.reason}` };
    }
    if (arn.startsWith('arn:aws:events:') && arn.includes(':api-destination/')) {
      const status = await this.deliverToApiDestination(a.source.logicalId, a.target, arn, a.body, event);
      if (status >= 200 && status < 300) return { ok: true };
      return {
        ok: false,
        retryable: status === 0 || status === 429 || status >= 500,
        error: `HTTP ${status}`,
      };
    }
    if (arn.startsWith('arn:aws:lambda:')) {
      const decision = await authorizer.authorize(events, 'lambda:InvokeFunction', arn, {
        'aws:SourceArn': ruleArn,
      });
      if (decision.decision !== 'Allowed')
        return { ok: false, retryable: false, error: `AccessDenied: ${decision.reason}` };
      this.asyncInvocations.push({ functionArn: arn, event });
      return { ok: true };
    }
    this.unsupported.push(`rule ${a.source.logicalId} ${a.path}: target ${arn}`);
    return { ok: false, retryable: false, error: 'target type not modelled' };
  }

  private async deliverToApiDestination(
    ruleId: string,
    target: Json,
    arn: string,
    input: string,
    event: PublishedEvent['event'],
  ): Promise<number> {
    const { assembly, authorizer } = this.deps;
    const assumed = await authorizer.assumeRole(
      'events.amazonaws.com',
      target.RoleArn,
      `${ruleId} target role`,
    );
    if (assumed.decision !== 'Allowed') return 403;
    const role = this.rolePrincipal(`${ruleId} target role`, target.RoleArn);
    const decision = await authorizer.authorize(role, 'events:InvokeApiDestination', arn);
    if (decision.decision !== 'Allowed') return 403;
    const destination = assembly.byRefOrArn(arn);
    if (!destination) throw new Error(`no API destination ${arn}`);
    const d = assembly.props(destination);
    const connection = assembly.byRefOrArn(d.ConnectionArn);
    if (!connection) throw new Error(`no connection ${d.ConnectionArn}`);
    const c = assembly.props(connection);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Amazon/EventBridge/ApiDestinations',
    };
    if (c.AuthorizationType === 'API_KEY') {
      const apiKey = c.AuthParameters.ApiKeyAuthParameters;
      headers[String(apiKey.ApiKeyName).toLowerCase()] = this.resolveDynamicReference(
        String(apiKey.ApiKeyValue),
      );
    } else {
      this.unsupported.push(`connection ${connection.logicalId}: authorization ${c.AuthorizationType}`);
      return 0;
    }
    const response = await fetch(d.InvocationEndpoint, { method: d.HttpMethod, headers, body: input }).catch(
      () => undefined,
    );
    if (response) await response.arrayBuffer();
    this.deliveries.push({ target: arn, rule: ruleId, status: response?.status ?? 0, event });
    return response?.status ?? 0;
  }

  /** `{{resolve:secretsmanager:<arn>:SecretString:<json-key>::}}` → the secret's value. */
  resolveDynamicReference(value: string): string {
    const m = /^\{\{resolve:secretsmanager:(.+?):SecretString:([^:]*):([^:]*):([^:]*)\}\}$/.exec(value);
    if (!m) return value;
    const [, id, jsonKey] = m as unknown as [string, string, string];
    const secret = this.secretValue(id);
    if (secret === undefined) throw new Error(`dynamic reference to a missing secret ${id}`);
    return jsonKey ? String(JSON.parse(secret)[jsonKey]) : secret;
  }

  // ---- SQS --------------------------------------------------------------------------------

  private async sqs(who: Principal, req: IncomingMessage, body: Buffer, res: ServerResponse) {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const input = JSON.parse(body.toString('utf8') || '{}') as Json;
    const contentType = 'application/x-amz-json-1.0';
    let queue: Queue;
    try {
      queue = this.deps.queues.get(input.QueueUrl ?? input.QueueName);
    } catch {
      return jsonError(
        res,
        400,
        'com.amazonaws.sqs#QueueDoesNotExist',
        'The specified queue does not exist.',
      );
    }
    const action = operation.replace(/Batch$/, '');
    const decision = await this.deps.authorizer.authorize(who, `sqs:${action}`, queue.arn);
    if (decision.decision !== 'Allowed') {
      return jsonError(
        res,
        400,
        'com.amazon.coral.service#AccessDeniedException',
        `User: ${who.principal} is not authorized to perform: sqs:${action} on resource: ${queue.arn}`,
      );
    }
    const send = (m: Json) => {
      const message = this.deps.queues.send(queue, m.MessageBody, {
        ...(m.MessageGroupId ? { groupId: m.MessageGroupId } : {}),
        ...(m.MessageDeduplicationId ? { deduplicationId: m.MessageDeduplicationId } : {}),
      });
      return {
        MessageId: message.messageId,
        MD5OfMessageBody: message.md5OfBody,
        ...(m.MessageAttributes && Object.keys(m.MessageAttributes).length > 0
          ? { MD5OfMessageAttributes: md5OfAttributes(m.MessageAttributes) }
          : {}),
        ...(message.sequenceNumber ? { SequenceNumber: message.sequenceNumber } : {}),
      };
    };
    switch (operation) {
      case 'SendMessage':
        return jsonOk(res, send(input), contentType);
      case 'SendMessageBatch':
        return jsonOk(
          res,
          { Successful: input.Entries.map((e: Json) => ({ Id: e.Id, ...send(e) })), Failed: [] },
          contentType,
        );
      case 'GetQueueUrl':
        return jsonOk(res, { QueueUrl: queue.url }, contentType);
      case 'ChangeMessageVisibility':
        this.deps.queues.changeVisibility(
          queue,
          String(input.ReceiptHandle),
          Number(input.VisibilityTimeout),
        );
        return jsonOk(res, {}, contentType);
      case 'GetQueueAttributes':
        return jsonOk(
          res,
          { Attributes: { QueueArn: queue.arn, ApproximateNumberOfMessages: String(queue.messages.length) } },
          contentType,
        );
      default:
        this.unsupported.push(`${who.caller} sqs ${operation}`);
        return jsonError(res, 400, 'UnsupportedOperation', `sqs ${operation}`);
    }
  }

  // ---- Secrets Manager --------------------------------------------------------------------

  private async secretsManager(who: Principal, req: IncomingMessage, body: Buffer, res: ServerResponse) {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const input = JSON.parse(body.toString('utf8') || '{}') as Json;
    if (operation !== 'GetSecretValue') {
      this.unsupported.push(`${who.caller} secretsmanager ${operation}`);
      return jsonError(res, 400, 'UnknownOperationException', `secretsmanager ${operation}`);
    }
    const secret = this.findSecret(String(input.SecretId));
    const arn =
      secret?.arn ??
      (String(input.SecretId).startsWith('arn:')
        ? String(input.SecretId)
        : `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${input.SecretId}-AbCdEf`);
    const decision = await this.deps.authorizer.authorize(who, 'secretsmanager:GetSecretValue', arn);
    if (decision.decision !== 'Allowed') {
      return jsonError(
        res,
        400,
        'AccessDeniedException',
        `User: ${who.principal} is not authorized to perform: secretsmanager:GetSecretValue on resource: ${input.SecretId}`,
      );
    }
    if (!secret)
      return jsonError(
        res,
        400,
        'ResourceNotFoundException',
        "Secrets Manager can't find the specified secret.",
      );
    jsonOk(res, {
      ARN: secret.arn,
      Name: secret.name,
      SecretString: this.resolveDynamicReference(secret.value),
      VersionId: '00000000-0000-0000-0000-000000000001',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_700_000_000,
    });
  }
}
