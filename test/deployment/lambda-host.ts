/**
 * The Lambda service, as far as the deployment test needs it: each function of the template runs
 * its bundle from the cloud assembly in its own worker thread (its own `process.env`, module state
 * and SDK clients), with the template's environment and the variables Lambda itself sets, and with
 * credentials that name its role to the AWS stand-in. One invocation at a time per function, with
 * the template's timeout.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type Assembly, REGION, type Resource } from './assembly.js';

export interface FunctionInfo {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly roleArn: string;
  readonly timeoutSeconds: number;
  readonly environment: Record<string, string>;
}

export interface InvokeResult {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: { name: string; message: string; stack: string };
}

export interface LambdaHost {
  readonly functions: readonly FunctionInfo[];
  byArnOrName(value: string): FunctionInfo;
  /** The function whose role signs as this access key id. */
  byAccessKey(accessKeyId: string): FunctionInfo | undefined;
  invoke(fn: FunctionInfo, event: unknown): Promise<InvokeResult>;
  /** Everything the function printed (its logs), in order. */
  output(fn: FunctionInfo): string;
  allOutput(): string;
  close(): Promise<void>;
}

/** The access key id a function's credentials carry: its logical id, so the stand-in knows the caller. */
export const accessKeyOf = (logicalId: string) => `ASIA${logicalId}`;

export function createLambdaHost(assembly: Assembly, awsEndpoint: string): LambdaHost {
  const functions: (FunctionInfo & { resource: Resource })[] = assembly
    .byType('AWS::Lambda::Function')
    .map((resource) => {
      const p = assembly.props(resource);
      return {
        resource,
        logicalId: resource.logicalId,
        name: resource.ref,
        arn: resource.attributes.Arn as string,
        roleArn: p.Role,
        timeoutSeconds: p.Timeout ?? 3,
        environment: p.Environment?.Variables ?? {},
      };
    });
  const workers = new Map<string, { worker: Worker; ready: Promise<void>; chain: Promise<unknown> }>();
  const logs = new Map<string, string[]>();
  const pending = new Map<string, (r: InvokeResult) => void>();

  const start = (fn: (typeof functions)[number]) => {
    const p = assembly.props(fn.resource);
    const dir = assembly.assetDir(fn.resource);
    const [file, exportName] = String(p.Handler).split('.');
    if (exportName !== 'handler')
      throw new Error(`${fn.logicalId}: handler ${p.Handler} is not <file>.handler`);
    const logGroup = p.LoggingConfig?.LogGroup ?? `/aws/lambda/${fn.name}`;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      ...fn.environment,
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_EXECUTION_ENV: `AWS_Lambda_${p.Runtime}`,
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(p.MemorySize ?? 128),
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_LOG_GROUP_NAME: logGroup,
      AWS_LAMBDA_LOG_STREAM_NAME: 'local',
      AWS_LAMBDA_LOG_FORMAT: p.LoggingConfig?.LogFormat ?? 'Text',
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
      AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
      LAMBDA_TASK_ROOT: dir,
      LAMBDA_RUNTIME_DIR: dir,
      _HANDLER: p.Handler,
      // Temporary credentials of the function's role; the stand-in maps the key id to the role.
      AWS_ACCESS_KEY_ID: accessKeyOf(fn.logicalId),
      AWS_SECRET_ACCESS_KEY: 'deployment-test',
      AWS_SESSION_TOKEN: `session-${fn.logicalId}`,
      // The one thing that differs from AWS: every SDK client talks to the local stand-in.
      AWS_ENDPOINT_URL: awsEndpoint,
    };
    const out: string[] = [];
    logs.set(fn.logicalId, out);
    const entry = join(dir, `${file}.mjs`);
    const worker = new Worker(new URL('./lambda-worker.mjs', import.meta.url), {
      env,
      stdout: true,
      stderr: true,
      workerData: {
        entry,
        functionName: fn.name,
        functionArn: fn.arn,
        timeoutMs: fn.timeoutSeconds * 1000,
        memoryMb: p.MemorySize ?? 128,
        logGroup,
      },
    });
    worker.stdout.on('data', (d: Buffer) => out.push(d.toString('utf8')));
    worker.stderr.on('data', (d: Buffer) => out.push(d.toString('utf8')));
    const ready = new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (m: { ready?: boolean; id?: string } & InvokeResult) => {
        if (m.ready) {
          worker.off('error', reject);
          resolve();
          return;
        }
        const done = m.id ? pending.get(m.id) : undefined;
        if (m.id && done) {
          pending.delete(m.id);
          done(m);
        }
      });
    });
    const entryState = { worker, ready, chain: ready as Promise<unknown> };
    workers.set(fn.logicalId, entryState);
    return entryState;
  };

  const find = (value: string) => {
    const name = value.replace(/:\$LATEST$/, '');
    const fn = functions.find((f) => f.arn === name || f.name === name || f.logicalId === name);
    if (!fn) throw new Error(`no function ${value} in the template`);
    return fn;
  };

  return {
    functions,
    byArnOrName: find,
    byAccessKey: (key) => functions.find((f) => accessKeyOf(f.logicalId) === key),
    invoke(info, event) {
      const fn = find(info.arn);
      const state = workers.get(fn.logicalId) ?? start(fn);
      const run = state.chain.then(
        () =>
          new Promise<InvokeResult>((resolve) => {
            const id = randomUUID();
            pending.set(id, resolve);
            const traceId = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Parent=${randomUUID().replace(/-/g, '').slice(0, 16)};Sampled=0`;
            state.worker.postMessage({ id, event, requestId: randomUUID(), traceId });
          }),
      );
      state.chain = run.catch(() => undefined);
      return run;
    },
    output: (info) => (logs.get(info.logicalId) ?? []).join(''),
    allOutput: () => [...logs.values()].map((l) => l.join('')).join(''),
    async close() {
      await Promise.all([...workers.values()].map((w) => w.worker.terminate()));
      workers.clear();
    },
  };
}
