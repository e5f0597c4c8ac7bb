/**
 * Builds both stacks into an app: what `infra/app.ts` runs, and what the tests build with their
 * own configuration, routing table and context.
 */
import { join } from 'node:path';
import { type App, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { loadActionsConfig } from '../functions/core/actions/actions-config.js';
import {
  buildRoutes,
  buildScheduledActions,
  type Route,
  type ScheduledAction,
} from '../functions/core/routes.js';
import { ENV } from '../functions/shared/env-names.js';
import { namePrefix } from './config/names.js';
import type { InfraConfig } from './config/schema.js';
import { FUNCTION_BUILD_CONTEXT, type FunctionBuildSettings } from './constructs/app-function.js';
import { PROJECT_ROOT } from './constructs/handler-entry.js';
import { StatefulStack } from './stacks/stateful-stack.js';
import { StatelessStack } from './stacks/stateless-stack.js';

export const DEFAULT_SCHEMAS_DIR = join(PROJECT_ROOT, 'events', 'schemas');

export interface BuildAppOptions {
  readonly config: InfraConfig;
  readonly env?: Environment;
  /** Default: `buildRoutes` over the configured action settings. */
  readonly routes?: readonly Route[];
  /** Default: `buildScheduledActions` over the configured action settings. */
  readonly scheduledActions?: readonly ScheduledAction[];
  readonly schemasDir?: string;
  /** Registers cdk-nag AwsSolutions on the app (default true). */
  readonly nag?: boolean;
}

export interface BuiltApp {
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
  readonly routes: readonly Route[];
  readonly scheduledActions: readonly ScheduledAction[];
}

/** The action settings exactly as the action functions will read them. */
export function actionsConfigOf(config: InfraConfig) {
  return loadActionsConfig({
    ...config.actions,
    [ENV.connection]: config.connection,
    [ENV.serviceVariant]: config.serviceVariant,
  });
}

export function buildApp(app: App, options: BuildAppOptions): BuiltApp {
  const { config } = options;
  const actions = actionsConfigOf(config);
  const routes = options.routes ?? buildRoutes(actions, { everyConnection: config.connectionRegistry });
  const scheduledActions = options.scheduledActions ?? buildScheduledActions(actions);
  const prefix = namePrefix(config);
  const tags = { project: 'accounting-events', stage: config.stage };

  // Every function reads how it is built from the app's context (infra/constructs/app-function.ts).
  app.node.setContext(FUNCTION_BUILD_CONTEXT, {
    tracing: config.tracing,
    sourceMaps: config.sourceMaps,
  } satisfies FunctionBuildSettings);

  const stateful = new StatefulStack(app, `${prefix}-stateful`, {
    ...(options.env ? { env: options.env } : {}),
    description: 'accounting-events: tables, buckets, event bus, secret, schema registry',
    config,
    schemasDir: options.schemasDir ?? DEFAULT_SCHEMAS_DIR,
    tags,
  });
  const stateless = new StatelessStack(app, `${prefix}-stateless`, {
    ...(options.env ? { env: options.env } : {}),
    description: 'accounting-events: poller, schedule, routes (rule → queue → function), alarms',
    config,
    resources: stateful,
    routes,
    scheduledActions,
    tags,
  });

  if (options.nag ?? true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { stateful, stateless, routes, scheduledActions };
}
