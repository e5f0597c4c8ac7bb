/**
 * The one way this app defines a Lambda function: Node 24 on ARM64, an ESM bundle (minified, with
 * source maps) built locally by esbuild, its own log group with a retention, its own role with no
 * managed policy, X-Ray active tracing and the Powertools environment. Access to resources is
 * added with the helpers in `grants.ts`, which grant and set the environment variable together.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../../functions/shared/env-names.js';
import { findHandlerEntry, MissingHandlerError, PROJECT_ROOT } from './handler-entry.js';

/** ESM output has no `require`; some dependencies still call it. */
export const REQUIRE_SHIM_BANNER =
  "import { createRequire as __aeCreateRequire } from 'node:module'; const require = __aeCreateRequire(import.meta.url);";

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

    const common: CommonFunctionProps = {
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: FUNCTION_ARCHITECTURE,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: lambda.Tracing.ACTIVE,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace,
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        [ENV.logLevel]: props.logLevel,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...props.environment,
      },
    };

    this.function = this.createFunction(props, common);

    const policy = this.role.node.tryFindChild('DefaultPolicy');
    if (policy) {
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only the X-Ray statement (xray:PutTraceSegments, xray:PutTelemetryRecords) uses Resource *: X-Ray offers no resource-level permissions. Tests assert no other statement does.',
      });
    }
  }

  /** The bundled handler module, or (synthesis without bundling only) a stand-in that names it missing. */
  private createFunction(props: AppFunctionProps, common: CommonFunctionProps): lambda.Function {
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
    return new NodejsFunction(this, 'Function', {
      ...common,
      entry,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}/package-lock.json`,
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        banner: REQUIRE_SHIM_BANNER,
        minify: true,
        // Non-ASCII text as UTF-8, not escaped: libxml2-wasm carries its WebAssembly as a string, so
        // the archive bundle is about 210 KB smaller. (This aws-cdk-lib builds no flag from the
        // `charset` property, hence the argument.)
        esbuildArgs: { '--charset': 'utf8' },
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        // Bundle the AWS SDK too: the code deployed is the code tested, whatever the runtime ships.
        externalModules: [],
        forceDockerBundling: false,
      },
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
