/**
 * Shared wiring of the action handlers. Each handler file hands its registry entry
 * (functions/core/actions/registry.ts) to `defineSqsAction` or `defineScheduledActionHandler`; the
 * environment is read once at cold start (`loadActionFunctionConfig`: every problem in one error).
 * Every function acts through the one per-connection path of core (`core/connection-actions.ts`),
 * whether the deployment has one connection or a registry of many: only the registry port differs.
 * One connection: the environment-backed registry of one (`adapters/env-connection-registry.ts`),
 * whose entry uses the deployment's credentials (the environment's, or its secret's). Many: the
 * DynamoDB registry and each connection's own secret and bucket. Every client comes from the one
 * client builder (`connection-actions.ts`, `wiring/connection-clients.ts`).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsAdapters } from '../adapters/aws/adapter-config.js';
import { addLambdaContext, LambdaLogger } from '../adapters/aws/lambda-logger.js';
import { instrumentClient } from '../adapters/aws/lambda-tracer.js';
import { createSqsDeadLetterSink } from '../adapters/aws/sqs-dead-letter-sink.js';
import type {
  ActionCapabilities,
  ActionResource,
  EventActionDefinition,
  ScheduledActionDefinition,
} from '../core/actions/action-definition.js';
import type { DeadLetterSink } from '../core/actions/dead-letter-sink.js';
import {
  type ActionConnection,
  connectionActionEntry,
  type EachConnectionDeps,
  scheduledForEachConnection,
  settingsOf,
} from '../core/connection-actions.js';
import type { Logger } from '../core/ports.js';
import { systemClock } from '../shared/clock.js';
import { ENV } from '../shared/env-names.js';
import type { AppLogger } from '../shared/logger.js';
import {
  type ActionFunctionConfig,
  deadLetterQueueUrlOf,
  loadActionFunctionConfig,
} from './action-config.js';
import { type ConnectionActionDeps, connectionActionDepsFromConfig } from './connection-actions.js';
import { createInvocationDeadline, type InvocationDeadline } from './invocation-deadline.js';
import { createSqsActionHandler, type SqsActionHandler, type SqsHandlerDeps } from './sqs-action-handler.js';

export type { SqsActionHandler, SqsHandlerDeps } from './sqs-action-handler.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The route's DLQ from `ACTIONS_DEAD_LETTER_QUEUE_URL` (set by infra on every SQS action function);
 * `undefined` when unset, which keeps invalid events on the queue's redrive and says so once.
 */
export function deadLetterSinkFromEnvironment(
  env: Env,
  logger: Logger,
  client?: SQSClient,
): DeadLetterSink | undefined {
  return deadLetterSinkOf(deadLetterQueueUrlOf(env), logger, client);
}

function deadLetterSinkOf(
  queueUrl: string | undefined,
  logger: Logger,
  client?: SQSClient,
): DeadLetterSink | undefined {
  if (!queueUrl) {
    logger.warn('dead-letter queue not configured', {
      variable: ENV.actionsDeadLetterQueueUrl,
      effect: 'invalid events are failed items until the queue redrives them after maxReceiveCount',
    });
    return undefined;
  }
  return createSqsDeadLetterSink({ client: client ?? instrumentClient(new SQSClient({})), queueUrl });
}

/**
 * One SQS action Lambda from its registry entry: the SQS handler around the one per-connection
 * entry of core (`connectionActionEntry`) for the given registry and ports, and the handler built
 * from the environment (for `lazyHandler`). `capabilities` are what only this function loads (the
 * archive's schema check), given by its handler file so that no other bundle carries them.
 */
export function defineSqsAction<R extends ActionResource, D>(
  action: EventActionDefinition<R, D>,
  capabilities: ActionCapabilities = {},
) {
  const createHandler = <C extends ActionConnection>(
    deps: EachConnectionDeps<R, C> & SqsHandlerDeps,
  ): SqsActionHandler =>
    createSqsActionHandler(
      action.name,
      connectionActionEntry(action, deps),
      deps.logger,
      deps.deadLetters,
      deps.deadline,
    );
  /** The handler of the deployment: every event through the one per-connection path of core. */
  const handlerFromEnv = async (env: Env): Promise<SqsActionHandler> => {
    const config = loadActionFunctionConfig(env, action.uses, settingsOf(action));
    const deps = await connectionDepsFromEnv(env, action, config, capabilities);
    const entry = connectionActionEntry(action, deps);
    const deadLetters = deadLetterSinkOf(config.deadLetterQueueUrl, deps.logger);
    return createSqsActionHandler(action.name, entry, deps.logger, deadLetters, deps.deadline);
  };
  return { createHandler, handlerFromEnv };
}

/**
 * The deps of the per-connection path from the function's configuration: the registry (the
 * DynamoDB table, or the environment's registry of one) and each connection's client from the one
 * client builder (`connection-actions.ts`).
 */
async function connectionDepsFromEnv(
  env: Env,
  action: { name: string; uses: readonly ActionResource[] },
  config: ActionFunctionConfig,
  capabilities: ActionCapabilities = {},
): Promise<ConnectionActionDeps & { logger: AppLogger; deadline: InvocationDeadline }> {
  const parts = functionParts(action.name, config);
  return { ...connectionActionDepsFromConfig(env, parts, capabilities), deadline: parts.deadline };
}

/** What an action function builds once per container: its logger, clock, AWS clients and deadline. */
export function functionParts(name: string, config: ActionFunctionConfig) {
  const logger = new LambdaLogger({ level: config.logLevel, service: name });
  const clock = systemClock;
  const aws = createAwsAdapters(config.adapters, { clock, logger, instrument: instrumentClient });
  return { config, aws, clock, logger, deadline: createInvocationDeadline() };
}

/** One scheduled action Lambda from its registry entry: each invocation runs one pass. */
export function defineScheduledActionHandler<R extends ActionResource, D extends { logger: Logger }, T>(
  action: ScheduledActionDefinition<R, D, T>,
) {
  const createHandler =
    (deps: D) =>
    async (_event?: unknown, context?: unknown): Promise<T> => {
      addLambdaContext(deps.logger, context);
      return action.run(deps)();
    };
  /** One pass per connection of the registry (of one, or of many): results by connection. */
  const handlerFromEnv = async (
    env: Env,
  ): Promise<(event?: unknown, context?: unknown) => Promise<Record<string, T>>> => {
    const config = loadActionFunctionConfig(env, action.uses, settingsOf(action));
    const deps = await connectionDepsFromEnv(env, action, config);
    return async (_event?: unknown, context?: unknown) => {
      addLambdaContext(deps.logger, context);
      return scheduledForEachConnection(action, deps);
    };
  };
  return { createHandler, handlerFromEnv };
}
