/**
 * The one Lambda entry of every action: the bundle of an action is built from a generated entry
 * (`infra/constructs/handler-entry.ts`) that imports the action's own folder module
 * (`core/actions/<folder>/action.ts`), the capabilities the action declares
 * (`handlers/capabilities/<capability>.ts`) and this module, and exports
 * `actionLambdaHandler(definitions, name, capabilities)`. No action has a hand-written handler file.
 */
import type {
  ActionCapabilities,
  ActionDefinition,
  EventActionDefinition,
  ScheduledActionDefinition,
} from '../core/actions/action-definition.js';
import { defineScheduledActionHandler, defineSqsAction } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

/** Thrown at cold start when the generated entry names an action its folder module does not define. */
export class UnknownActionError extends Error {
  override readonly name = 'UnknownActionError';
}

function isDefinition(value: unknown, name: string): value is ActionDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === name &&
    ((value as { kind?: unknown }).kind === 'event' || (value as { kind?: unknown }).kind === 'scheduled')
  );
}

/** The definition named `name` among a folder module's exports. */
export function definitionOf(definitions: Readonly<Record<string, unknown>>, name: string): ActionDefinition {
  const definition = Object.values(definitions).find((d) => isDefinition(d, name));
  if (!definition) throw new UnknownActionError(`no action '${name}' among the exports of its folder module`);
  return definition;
}

/**
 * The Lambda handler of the action `name`: the SQS batch handler of an event action, one pass per
 * connection of a scheduled one. The environment is read on the first invocation.
 */
export function actionLambdaHandler(
  definitions: Readonly<Record<string, unknown>>,
  name: string,
  capabilities: ActionCapabilities = {},
) {
  const definition = definitionOf(definitions, name);
  if (definition.kind === 'event') {
    const action = defineSqsAction(definition as EventActionDefinition<never, never>, capabilities);
    return lazyHandler(() => action.handlerFromEnv(process.env));
  }
  const action = defineScheduledActionHandler(definition as ScheduledActionDefinition<never, never>);
  return lazyHandler(() => action.handlerFromEnv(process.env));
}
