/**
 * The Lambda service, as far as the deployment test needs it: each function of the template runs
 * its bundle from the cloud assembly in its own worker thread (its own `process.env`, module state
 * and SDK clients), with the template's environment and the variables Lambda itself sets, and with
 * credentials that name its role to the AWS stand-in. One invocation at a time per function.
 *
 * As on Lambda: a function with `ReservedConcurrentExecutions: 0` is throttled (never runs); the
 * template's timeout ends the environment (the invocation fails with "Task timed out"); an error
 * that escapes the handler, an exit or a failed cold start fails the invocation in flight and the
 * next one starts a new environment. Before a cold start the host asks `coldStart` (the role
 * assumed by Lambda, the log grants); a refusal fails the invocation without running it.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type Assembly, REGION, type Resource } from './assembly.js';
import type { VirtualClock } from './virtual-clock.js';

export interface FunctionInfo {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly roleArn: string;
  readonly timeoutSeconds: number;
  readonly reservedConcurrency?: number;
  readonly logGroup: string;
  readonly environment: Record<string, string>;
}

export interface InvokeResult {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: { name: string; message: string; stack: string };
}

export interface LambdaHostOptions {
  readonly clock: VirtualClock;
  /** Checks before an environment starts; a message refuses the start (the invocation fails with it). */
  readonly coldStart?: (fn: FunctionInfo) => Promise<string | undefined>;
}

export interface LambdaHost {
  readonly functions: readonly FunctionInfo[];
  byArnOrName(value: string): FunctionInfo;
  /** The function whose role signs as this access key id. */
  byAccessKey(accessKeyId: string): FunctionInfo | undefined;
  invoke(fn: FunctionInfo, event: unknown): Promise<InvokeResult>;
  /** Environments started per function (a restart after a failure counts again). */
  readonly coldStarts: Map<string, number>;
  /** Everything the function printed (its logs), in order. */
  output(fn: FunctionInfo): string;
  allOutput(): string;
  close(): Promise<void>;
}

/** The access key id a function's credentials carry: its logical id, so the stand-in knows the caller. */
export const accessKeyOf = (logicalId: string) => `ASIA${logicalId}`;

const failure = (name: string, message: string): InvokeResult => ({
  ok: false,
  error: { name, message, stack: '' },
});

interface Environment {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  /** The invocation in flight: resolved by the worker's answer, or by its end. */
  inFlight?: { id: string; resolve: (r: InvokeResult) => void };
  ended: boolean;
  /** Why the cold start failed (the bundle's import threw), if it did. */
  initError?: string;
}

export function createLambdaHost(
  assembly: Assembly,
  awsEndpoint: string,
  options: LambdaHostOptions,
): LambdaHost {
  const functions: (FunctionInfo & { resource: Resource })[] = assembly
    .byType('AWS::Lambda::Function')
    .map((resource) => {
      const p = assembly.props(resource);
      const reserved = p.ReservedConcurrentExecutions;
      return {
        resource,
        logicalId: resource.logicalId,
        name: resource.ref,
        arn: resource.attributes.Arn as string,
        roleArn: p.Role,
        timeoutSeconds: Number(p.Timeout ?? 3),
        ...(reserved !== undefined ? { reservedConcurrency: Number(reserved) } : {}),
        logGroup: p.LoggingConfig?.LogGroup ?? `/aws/lambda/${resource.ref}`,
        environment: p.Environment?.Variables ?? {},
      };
    });
  const environments = new Map<string, Environment>();
  const chains = new Map<string, Promise<unknown>>();
  const logs = new Map<string, string[]>();
  const coldStarts = new Map<string, number>();

  const end = (env: Environment, result: InvokeResult) => {
    env.ended = true;
    const inFlight = env.inFlight;
    env.inFlight = undefined;
    inFlight?.resolve(result);
    void env.worker.terminate();
  };

  const start = (fn: (typeof functions)[number]): Environment => {
    const p = assembly.props(fn.resource);
    const dir = assembly.assetDir(fn.resource);
    const [file, exportName] = String(p.Handler).split('.');
    if (exportName !== 'handler')
      throw new Error(`${fn.logicalId}: handler ${p.Handler} is not <file>.handler`);
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
      AWS_LAMBDA_LOG_GROUP_NAME: fn.logGroup,
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
    const out = logs.get(fn.logicalId) ?? [];
    logs.set(fn.logicalId, out);
    coldStarts.set(fn.logicalId, (coldStarts.get(fn.logicalId) ?? 0) + 1);
    const worker = new Worker(new URL('./lambda-worker.mjs', import.meta.url), {
      env,
      stdout: true,
      stderr: true,
      workerData: {
        entry: join(dir, `${file}.mjs`),
        functionName: fn.name,
        functionArn: fn.arn,
        timeoutMs: fn.timeoutSeconds * 1000,
        memoryMb: p.MemorySize ?? 128,
        logGroup: fn.logGroup,
        clockOffsetMs: options.clock.offsetMs,
      },
    });
    worker.stdout.on('data', (d: Buffer) => out.push(d.toString('utf8')));
    worker.stderr.on('data', (d: Buffer) => out.push(d.toString('utf8')));
    let markReady: () => void = () => undefined;
    const state: Environment = {
      worker,
      ready: new Promise<void>((resolve) => {
        markReady = resolve;
      }),
      ended: false,
    };
    let isReady = false;
    worker.on('message', (m: { ready?: boolean; id?: string } & InvokeResult) => {
      if (m.ready) {
        isReady = true;
        return markReady();
      }
      if (m.id && state.inFlight?.id === m.id) {
        const { resolve } = state.inFlight;
        state.inFlight = undefined;
        resolve(m);
      }
    });
    worker.on('error', (error: Error) => {
      out.push(`${error.stack ?? error.message}\n`);
      if (!isReady) state.initError = `${error.name}: ${error.message}`;
      end(state, failure(error.name === 'Error' ? 'Runtime.UnhandledError' : error.name, error.message));
      markReady();
    });
    worker.on('exit', (code) => {
      if (!state.ended) end(state, failure('Runtime.ExitError', `the environment exited with code ${code}`));
      markReady();
    });
    environments.set(fn.logicalId, state);
    return state;
  };

  const find = (value: string) => {
    const name = value.replace(/:\$LATEST$/, '');
    const fn = functions.find((f) => f.arn === name || f.name === name || f.logicalId === name);
    if (!fn) throw new Error(`no function ${value} in the template`);
    return fn;
  };

  const runOnce = async (fn: (typeof functions)[number], event: unknown): Promise<InvokeResult> => {
    if (fn.reservedConcurrency === 0)
      return failure(
        'TooManyRequestsException',
        `Rate Exceeded: ${fn.logicalId} has ReservedConcurrentExecutions 0, so it is throttled`,
      );
    let state = environments.get(fn.logicalId);
    if (!state || state.ended) {
      const refused = await options.coldStart?.(fn);
      if (refused) return failure('Lambda.ColdStartRefused', `${fn.logicalId}: ${refused}`);
      state = start(fn);
    }
    await state.ready;
    if (state.ended)
      return failure(
        'Runtime.InitError',
        `${fn.logicalId}: the environment ended during its cold start${state.initError ? ` (${state.initError})` : ''}`,
      );
    const running = state;
    return new Promise<InvokeResult>((resolve) => {
      const id = randomUUID();
      const timer = setTimeout(() => {
        end(
          running,
          failure(
            'Sandbox.Timedout',
            `${fn.logicalId}: Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds (its Timeout)`,
          ),
        );
      }, fn.timeoutSeconds * 1000);
      running.inFlight = {
        id,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      const traceId = `Root=1-${Math.floor(options.clock.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Parent=${randomUUID().replace(/-/g, '').slice(0, 16)};Sampled=0`;
      running.worker.postMessage({
        id,
        event,
        requestId: randomUUID(),
        traceId,
        clockOffsetMs: options.clock.offsetMs,
      });
    });
  };

  return {
    functions,
    byArnOrName: find,
    byAccessKey: (key) => functions.find((f) => accessKeyOf(f.logicalId) === key),
    invoke(info, event) {
      const fn = find(info.arn);
      const run = (chains.get(fn.logicalId) ?? Promise.resolve()).then(() => runOnce(fn, event));
      chains.set(
        fn.logicalId,
        run.catch(() => undefined),
      );
      return run;
    },
    coldStarts,
    output: (info) => (logs.get(info.logicalId) ?? []).join(''),
    allOutput: () => [...logs.values()].map((l) => l.join('')).join(''),
    async close() {
      await Promise.all([...environments.values()].map((e) => e.worker.terminate()));
      environments.clear();
    },
  };
}
