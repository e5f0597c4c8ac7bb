/**
 * The one way this app defines a Lambda function: Node 24 on ARM64, an ESM bundle built locally by
 * esbuild (scripts/bundle-function.mjs, which the bench runs too), its own log group with a
 * retention, its own role with no managed policy and the Powertools environment. X-Ray tracing and
 * source maps are settings of the deployment (`tracing`, `sourceMaps`; off by default: they weigh
 * on the bundle). Access to resources is added with the helpers in `grants.ts`, which grant and
 * set the environment variable together.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import {
  AssetHashType,
  DockerImage,
  Duration,
  type ILocalBundling,
  type RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '#functions/shared/env-names.js';
import { BUNDLE_CACHE_ENV, copyCachedBundle, REQUIRE_SHIM_BANNER } from '#scripts/bundle-function.mjs';
import { findHandlerEntry, type HandlerEntry, MissingHandlerError, PROJECT_ROOT } from './handler-entry.js';

export { REQUIRE_SHIM_BANNER };

/** Context key under which `buildApp` puts the deployment's `FunctionBuildSettings`. */
export const FUNCTION_BUILD_CONTEXT = 'accounting-events:function-build';

/** How every function of a deployment is built (infra config `tracing`, `sourceMaps`). */
export interface FunctionBuildSettings {
  /** X-Ray active tracing, and Powertools Tracer in the bundle. */
  readonly tracing: boolean;
  /** A source map beside each bundle and `--enable-source-maps`. */
  readonly sourceMaps: boolean;
}

const LEAN_BUILD: FunctionBuildSettings = { tracing: false, sourceMaps: false };

/** The build settings in force at `scope` (lean when the app sets none). */
export function functionBuildOf(scope: Construct): FunctionBuildSettings {
  const given = scope.node.tryGetContext(FUNCTION_BUILD_CONTEXT) as
    | Partial<FunctionBuildSettings>
    | undefined;
  return { ...LEAN_BUILD, ...given };
}

const BUNDLER = join(PROJECT_ROOT, 'scripts', 'bundle-function.mjs');

/**
 * CDK local bundling through the project's bundler, run as a child process (bundling is synchronous
 * here). With `ACCOUNTING_EVENTS_BUNDLE_CACHE` naming a directory (the test suite's syntheses), a
 * bundle whose sources are unchanged is copied from it without starting the bundler.
 */
class LocalBundler implements ILocalBundling {
  constructor(
    readonly entry: HandlerEntry,
    readonly sourceMap: boolean,
    readonly tracing: boolean,
  ) {}

  tryBundle(outputDir: string): boolean {
    const options = {
      ...('source' in this.entry ? { entrySource: this.entry.source } : { entry: this.entry.entry }),
      outdir: outputDir,
      target: 'node24',
      sourceMap: this.sourceMap,
      tracing: this.tracing,
    };
    const cacheDir = process.env[BUNDLE_CACHE_ENV];
    if (cacheDir && copyCachedBundle(options, resolve(PROJECT_ROOT, cacheDir))) return true;
    execFileSync(process.execPath, [BUNDLER, JSON.stringify(options)], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    return true;
  }
}

export const FUNCTION_RUNTIME = lambda.Runtime.NODEJS_24_X;
export const FUNCTION_ARCHITECTURE = lambda.Architecture.ARM_64;

export interface AppFunctionProps {
  /** Module under `functions/handlers/` (without extension) exporting `handler`. */
  readonly handler: string;
  /** What needs this function (named in the error when its handler module is missing). */
  readonly usedBy: string;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  /** `POWERTOOLS_SERVICE_NAME`: the `service` dimension of metrics and the `service` key of logs. */
  readonly serviceName: string;
  /** `POWERTOOLS_METRICS_NAMESPACE`. */
  readonly metricsNamespace: string;
  readonly logLevel: string;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly reservedConcurrentExecutions?: number;
  readonly environment?: Readonly<Record<string, string>>;
}

/** What every function shares, the handler's code and module apart. */
type CommonFunctionProps = lambda.FunctionOptions & { readonly runtime: lambda.Runtime };

export class AppFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly handler: string;
  readonly serviceName: string;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.handler = props.handler;
    this.serviceName = props.serviceName;

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    // Own role without AWSLambdaBasicExecutionRole: it may write to its own log group only.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${props.handler} function`,
    });
    this.logGroup.grantWrite(this.role);

    const build = functionBuildOf(this);
    const common: CommonFunctionProps = {
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: FUNCTION_ARCHITECTURE,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: build.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: {
        ...(build.sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace,
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        [ENV.logLevel]: props.logLevel,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...props.environment,
      },
    };

    this.function = this.createFunction(props, common, build);

    const policy = this.role.node.tryFindChild('DefaultPolicy');
    if (policy && build.tracing) {
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only the X-Ray statement (xray:PutTraceSegments, xray:PutTelemetryRecords) uses Resource *: X-Ray offers no resource-level permissions. Tests assert no other statement does.',
      });
    }
  }

  /** The bundled handler module, or (synthesis without bundling only) a stand-in that names it missing. */
  private createFunction(
    props: AppFunctionProps,
    common: CommonFunctionProps,
    build: FunctionBuildSettings,
  ): lambda.Function {
    const entry = findHandlerEntry(props.handler);
    if (entry === undefined) {
      // Synthesis without bundling (tests, `cdk diff` of other stacks) still works; a deployable
      // assembly cannot be made without the module, so bundling stops here with its name.
      if (Stack.of(this).bundlingRequired) {
        throw new MissingHandlerError([{ handler: props.handler, usedBy: props.usedBy }]);
      }
      return new lambda.Function(this, 'Function', {
        ...common,
        handler: 'index.handler',
        code: lambda.Code.fromInline(
          `exports.handler = async () => { throw new Error('functions/handlers/${props.handler}.ts is missing'); };`,
        ),
      });
    }
    return new lambda.Function(this, 'Function', {
      ...common,
      handler: 'index.handler',
      // The asset is the bundler's output directory (`index.mjs` and the files it loads), hashed by
      // its content; nothing of the project is copied.
      code: lambda.Code.fromAsset(PROJECT_ROOT, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never used: the local bundler always bundles (or fails).
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24'),
          local: new LocalBundler(entry, build.sourceMaps, build.tracing),
        },
      }),
    });
  }

  /** Adds an environment variable (for settings that are not a resource grant). */
  setEnv(name: string, value: string): this {
    this.function.addEnvironment(name, value);
    return this;
  }
}

/** Log retention as the enum the L2 constructs take. */
export function retentionOf(days: number): logs.RetentionDays {
  return days as logs.RetentionDays;
}

/** Six times the function timeout, as AWS recommends for a queue feeding a function. */
export function visibilityTimeoutFor(timeout: Duration): Duration {
  return Duration.seconds(timeout.toSeconds() * 6);
}
