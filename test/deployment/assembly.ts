/**
 * A cloud assembly as a deployment would see it: `buildApp` synthesized with bundling into a
 * directory, both templates read back, and every intrinsic (Ref, Fn::GetAtt, Fn::ImportValue,
 * Fn::Join, Fn::Sub, Fn::Select, Fn::Split) resolved to the physical names and ARNs of the local
 * stand-ins. Nothing here knows what a function does: it reads what the template says.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp } from '#infra/build-app.js';
import { defaultInfraConfig } from '#infra/config/load.js';
import type { InfraConfigInput } from '#infra/config/schema.js';
import { CDK_JSON_CONTEXT, TEST_ENV } from '../infra/support.js';

export const ACCOUNT = TEST_ENV.account;
export const REGION = TEST_ENV.region;

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON of every shape
export type Json = any;

export interface TemplateResource {
  readonly stack: string;
  readonly logicalId: string;
  readonly type: string;
  readonly properties: Json;
}

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: Json[];
}

/** One resource of the assembly with its resolved properties, `Ref` and attributes. */
export interface Resource extends TemplateResource {
  readonly ref: string;
  readonly attributes: Record<string, string>;
}

export interface Assembly {
  readonly outdir: string;
  readonly resources: readonly Resource[];
  /** Resolved properties of a resource (intrinsics replaced). */
  props(resource: Resource): Json;
  byType(type: string): Resource[];
  byLogicalId(logicalId: string): Resource;
  /** The resource whose Ref or Arn is this value. */
  byRefOrArn(value: string): Resource | undefined;
  /** The directory of a function's bundle in the cloud assembly. */
  assetDir(fn: Resource): string;
  /** Identity policies of a role, by role ARN: every AWS::IAM::Policy attached to it and its inline ones. */
  identityPolicies(roleArn: string): { name: string; policy: PolicyDocument }[];
  /** The resource policy of a resource ARN (bucket, queue, topic, key, log group, function), if any. */
  resourcePolicy(arn: string): PolicyDocument | undefined;
  /** A stack's outputs by key, resolved as `describe-stacks` would show them. */
  outputs(stack: string): Record<string, string>;
  /** A stack's tags, as `cdk deploy` gives them to CloudFormation (which puts them on the resources). */
  stackTags(stack: string): Record<string, string>;
}

/** Physical name of a resource without an explicit one: CloudFormation's stack-logicalId-suffix shape. */
const generatedName = (stack: string, logicalId: string) => `${stack}-${logicalId}`.slice(0, 60);

function physical(stack: string, logicalId: string, type: string, p: Json, queueBase: string): Resource {
  const base = { stack, logicalId, type, properties: p };
  const arn = (service: string, rest: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${rest}`;
  switch (type) {
    case 'AWS::DynamoDB::Table': {
      const name = p.TableName ?? generatedName(stack, logicalId);
      return { ...base, ref: name, attributes: { Arn: arn('dynamodb', `table/${name}`) } };
    }
    case 'AWS::S3::Bucket': {
      const name = (p.BucketName ?? generatedName(stack, logicalId)).toLowerCase();
      return {
        ...base,
        ref: name,
        attributes: { Arn: `arn:aws:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com` },
      };
    }
    case 'AWS::SQS::Queue': {
      const name = p.QueueName ?? `${generatedName(stack, logicalId)}${p.FifoQueue ? '.fifo' : ''}`;
      return {
        ...base,
        ref: `${queueBase}/${ACCOUNT}/${name}`,
        attributes: { Arn: arn('sqs', name), QueueName: name, QueueUrl: `${queueBase}/${ACCOUNT}/${name}` },
      };
    }
    case 'AWS::Lambda::Function': {
      const name = p.FunctionName ?? generatedName(stack, logicalId);
      return { ...base, ref: name, attributes: { Arn: arn('lambda', `function:${name}`) } };
    }
    case 'AWS::IAM::Role': {
      const name = p.RoleName ?? generatedName(stack, logicalId);
      return {
        ...base,
        ref: name,
        attributes: { Arn: `arn:aws:iam::${ACCOUNT}:role/${name}`, RoleId: `AROA${logicalId.toUpperCase()}` },
      };
    }
    case 'AWS::Events::EventBus': {
      const name = p.Name;
      return { ...base, ref: name, attributes: { Arn: arn('events', `event-bus/${name}`), Name: name } };
    }
    case 'AWS::SecretsManager::Secret': {
      const name = p.Name ?? generatedName(stack, logicalId);
      const secretArn = arn('secretsmanager', `secret:${name}-AbCdEf`);
      return { ...base, ref: secretArn, attributes: { Id: secretArn } };
    }
    case 'AWS::KMS::Key': {
      const id = `${logicalId.toLowerCase()}-0000-0000-0000-000000000000`.slice(0, 36);
      return { ...base, ref: id, attributes: { Arn: arn('kms', `key/${id}`), KeyId: id } };
    }
    case 'AWS::SNS::Topic': {
      const name = p.TopicName ?? generatedName(stack, logicalId);
      return { ...base, ref: arn('sns', name), attributes: { TopicArn: arn('sns', name), TopicName: name } };
    }
    case 'AWS::Logs::LogGroup': {
      const name = p.LogGroupName ?? `/aws/${generatedName(stack, logicalId)}`;
      return { ...base, ref: name, attributes: { Arn: arn('logs', `log-group:${name}:*`) } };
    }
    case 'AWS::ApiGatewayV2::Api': {
      const id = logicalId.toLowerCase().slice(0, 10);
      return {
        ...base,
        ref: id,
        attributes: { ApiId: id, ApiEndpoint: `https://${id}.execute-api.${REGION}.amazonaws.com` },
      };
    }
    case 'AWS::Scheduler::Schedule': {
      const name = p.Name ?? generatedName(stack, logicalId);
      return { ...base, ref: name, attributes: { Arn: arn('scheduler', `schedule/default/${name}`) } };
    }
    case 'AWS::Events::Connection': {
      const name = p.Name ?? generatedName(stack, logicalId);
      return {
        ...base,
        ref: name,
        attributes: {
          Arn: arn('events', `connection/${name}/0000`),
          SecretArn: arn('secretsmanager', `secret:events!connection/${name}/0000-AbCdEf`),
        },
      };
    }
    case 'AWS::Events::Archive': {
      const name = p.ArchiveName ?? generatedName(stack, logicalId).slice(0, 48);
      return { ...base, ref: name, attributes: { Arn: arn('events', `archive/${name}`) } };
    }
    case 'AWS::Events::ApiDestination': {
      const name = p.Name ?? generatedName(stack, logicalId);
      return { ...base, ref: name, attributes: { Arn: arn('events', `api-destination/${name}/0000`) } };
    }
    default:
      return { ...base, ref: logicalId, attributes: {} };
  }
}

export interface SynthOptions {
  readonly config: Partial<InfraConfigInput>;
  /** Base URL the queue URLs (`Ref` of a queue) point at: the SQS stand-in. */
  readonly queueBase: string;
}

/** Synthesizes the app with bundling (what `cdk synth` writes) and loads its assembly. */
export function synthesize(options: SynthOptions): Assembly {
  const outdir = mkdtempSync(join(tmpdir(), 'deployment-'));
  // CloudFormation's validation at synth is test/infra/cfn-validation.test.ts's, for every
  // configuration deployed here: its engine would take seconds to start in each deployment file.
  const app = new App({ outdir, context: CDK_JSON_CONTEXT, builtinCloudFormationValidation: false });
  buildApp(app, {
    env: TEST_ENV,
    nag: false,
    config: defaultInfraConfig({ stage: 'prod', ...options.config }),
  });
  const cloudAssembly = app.synth();
  const templates = cloudAssembly.stacks.map((s) => ({
    stack: s.stackName,
    template: JSON.parse(readFileSync(join(outdir, s.templateFile), 'utf8')) as Json,
  }));
  return loadAssembly(outdir, templates, options.queueBase);
}

export function loadAssembly(
  outdir: string,
  templates: readonly { stack: string; template: Json }[],
  queueBase: string,
): Assembly {
  const resources: Resource[] = [];
  // Physical names first need the (unresolved) name properties; names here are never intrinsics.
  for (const { stack, template } of templates) {
    for (const [logicalId, r] of Object.entries<Json>(template.Resources ?? {})) {
      resources.push(physical(stack, logicalId, r.Type, r.Properties ?? {}, queueBase));
    }
  }
  const byStackId = new Map(resources.map((r) => [`${r.stack}/${r.logicalId}`, r]));
  const exports = new Map<string, Json>();

  const resolveIn = (stack: string, value: Json): Json => {
    if (Array.isArray(value)) return value.map((v) => resolveIn(stack, v));
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [key] = keys as [string];
      const arg = value[key];
      const lookup = (id: string) => {
        const r = byStackId.get(`${stack}/${id}`);
        if (!r) throw new Error(`${stack}: no resource ${id}`);
        return r;
      };
      switch (key) {
        case 'Ref': {
          if (arg === 'AWS::Region') return REGION;
          if (arg === 'AWS::AccountId') return ACCOUNT;
          if (arg === 'AWS::Partition') return 'aws';
          if (arg === 'AWS::URLSuffix') return 'amazonaws.com';
          if (arg === 'AWS::StackName') return stack;
          return lookup(arg).ref;
        }
        case 'Fn::GetAtt': {
          const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split('.');
          const r = lookup(id);
          const v = r.attributes[attribute];
          if (v === undefined) throw new Error(`${stack}: ${id} has no attribute ${attribute} here`);
          return v;
        }
        case 'Fn::ImportValue': {
          const name = resolveIn(stack, arg);
          if (!exports.has(name)) throw new Error(`no export ${name}`);
          return exports.get(name);
        }
        case 'Fn::Join': {
          const [separator, parts] = arg;
          return (resolveIn(stack, parts) as unknown[]).join(separator);
        }
        case 'Fn::Select': {
          const [index, list] = resolveIn(stack, arg);
          return list[Number(index)];
        }
        case 'Fn::Split': {
          const [separator, text] = resolveIn(stack, arg);
          return String(text).split(separator);
        }
        case 'Fn::Sub': {
          const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
          const resolvedVars = resolveIn(stack, vars ?? {});
          return String(text).replace(/\$\{([^}]+)\}/g, (_, name: string) => {
            if (name in resolvedVars) return resolvedVars[name];
            if (name.includes('.') && !name.startsWith('AWS::')) {
              const [id, attribute] = name.split('.');
              return resolveIn(stack, { 'Fn::GetAtt': [id, attribute] });
            }
            return resolveIn(stack, { Ref: name });
          });
        }
        default:
          if (key.startsWith('Fn::')) throw new Error(`${stack}: intrinsic ${key} is not supported here`);
      }
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveIn(stack, v)]));
  };

  // Exports of every stack (the stateful stack's outputs are imported by the stateless one).
  for (const { stack, template } of templates) {
    for (const output of Object.values<Json>(template.Outputs ?? {})) {
      if (output.Export?.Name)
        exports.set(resolveIn(stack, output.Export.Name), resolveIn(stack, output.Value));
    }
  }

  // A rule's ARN names its bus, which the stateless stack imports: known only once exports are.
  for (const rule of resources.filter((r) => r.type === 'AWS::Events::Rule')) {
    const bus = resolveIn(rule.stack, rule.properties.EventBusName ?? 'default');
    const busName = String(bus).split('/').pop();
    rule.attributes.Arn = `arn:aws:events:${REGION}:${ACCOUNT}:rule/${busName === 'default' ? '' : `${busName}/`}${rule.ref}`;
  }

  const resolvedProps = new Map<Resource, Json>();
  const props = (r: Resource) => {
    let p = resolvedProps.get(r);
    if (p === undefined) {
      p = resolveIn(r.stack, r.properties);
      resolvedProps.set(r, p);
    }
    return p;
  };
  const templateOf = new Map(templates.map((t) => [t.stack, t.template]));

  const byType = (type: string) => resources.filter((r) => r.type === type);
  const identityPolicies = (roleArn: string) => {
    const role = resources.find((r) => r.type === 'AWS::IAM::Role' && r.attributes.Arn === roleArn);
    if (!role) return [];
    const out: { name: string; policy: PolicyDocument }[] = [];
    for (const inline of props(role).Policies ?? [])
      out.push({ name: inline.PolicyName, policy: inline.PolicyDocument });
    for (const policy of byType('AWS::IAM::Policy')) {
      const p = props(policy);
      if ((p.Roles ?? []).includes(role.ref)) out.push({ name: policy.logicalId, policy: p.PolicyDocument });
    }
    return out;
  };

  const resourcePolicies = new Map<string, PolicyDocument>();
  const addPolicy = (arn: string, doc: PolicyDocument) => {
    const existing = resourcePolicies.get(arn);
    resourcePolicies.set(arn, {
      Version: '2012-10-17',
      Statement: [...(existing?.Statement ?? []), ...doc.Statement],
    });
  };
  const arnOfRef = (type: string, ref: string) =>
    resources.find((r) => r.type === type && r.ref === ref)?.attributes.Arn ?? ref;
  for (const r of byType('AWS::S3::BucketPolicy')) {
    const p = props(r);
    addPolicy(`arn:aws:s3:::${p.Bucket}`, p.PolicyDocument);
  }
  for (const r of byType('AWS::SQS::QueuePolicy')) {
    const p = props(r);
    for (const url of p.Queues) addPolicy(arnOfRef('AWS::SQS::Queue', url), p.PolicyDocument);
  }
  for (const r of byType('AWS::SNS::TopicPolicy')) {
    const p = props(r);
    for (const topic of p.Topics) addPolicy(topic, p.PolicyDocument);
  }
  for (const r of byType('AWS::KMS::Key')) addPolicy(r.attributes.Arn as string, props(r).KeyPolicy);
  for (const r of byType('AWS::Logs::ResourcePolicy')) {
    const doc = JSON.parse(props(r).PolicyDocument) as PolicyDocument;
    for (const s of doc.Statement) {
      for (const arn of [s.Resource].flat()) addPolicy(String(arn).replace(/:\*$/, ''), { Statement: [s] });
    }
  }
  for (const r of byType('AWS::Lambda::Permission')) {
    const p = props(r);
    const fnArn = String(p.FunctionName).startsWith('arn:')
      ? p.FunctionName
      : arnOfRef('AWS::Lambda::Function', p.FunctionName);
    const principal = String(p.Principal).endsWith('.amazonaws.com')
      ? { Service: p.Principal }
      : { AWS: p.Principal };
    addPolicy(fnArn, {
      Statement: [
        {
          Effect: 'Allow',
          Principal: principal,
          Action: p.Action,
          Resource: fnArn,
          ...(p.SourceArn ? { Condition: { ArnLike: { 'aws:SourceArn': p.SourceArn } } } : {}),
        },
      ],
    });
  }

  return {
    outdir,
    resources,
    props,
    byType,
    byLogicalId: (logicalId) => {
      const r = resources.find((x) => x.logicalId === logicalId);
      if (!r) throw new Error(`no resource ${logicalId}`);
      return r;
    },
    byRefOrArn: (value) =>
      resources.find((r) => r.ref === value || Object.values(r.attributes).includes(value)),
    assetDir: (fn) => {
      // The asset's key is its hash; the cloud assembly keeps it as `asset.<hash>/`.
      const key = templateOf.get(fn.stack).Resources[fn.logicalId].Properties.Code?.S3Key;
      if (typeof key !== 'string') throw new Error(`${fn.logicalId} has no bundled asset (inline code?)`);
      return join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
    },
    identityPolicies,
    resourcePolicy: (arn) => resourcePolicies.get(arn),
    outputs: (stack) => {
      const template = templateOf.get(stack);
      if (!template) throw new Error(`no stack ${stack}`);
      return Object.fromEntries(
        Object.entries<Json>(template.Outputs ?? {}).map(([key, o]) => [
          key,
          String(resolveIn(stack, o.Value)),
        ]),
      );
    },
    stackTags: (stack) => {
      const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as Json;
      const artifact = manifest.artifacts?.[stack];
      if (!artifact) throw new Error(`no stack ${stack} in the cloud assembly's manifest`);
      return artifact.properties?.tags ?? {};
    },
  };
}
