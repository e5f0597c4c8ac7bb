/**
 * The actions' configuration: what every action shares (the connection, the service variant, the
 * event source, the stores' names), read here, and one section per action (`ActionSections`),
 * which each action declares in its own folder (`<name>/settings.ts`) and which
 * `actions-config.ts` loads from the registry. Every key is optional with a documented default
 * except resource names, which the handler that needs them asks for (`requireSetting`). Pure: it
 * receives the environment as a plain object.
 */
import * as z from 'zod';
import {
  DEFAULT_SERVICE_VARIANT,
  type ServiceVariant,
  serviceVariants,
} from '#functions/accounting/collections.js';
import { ConfigError, type Env, loadSections, parseEnvSection } from '#functions/shared/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { connectionEventSource, connectionSchema, DEFAULT_CONNECTION } from '../connection.js';
import { type ActionSettings, positiveInt } from './action-settings.js';

const commonSchema = z.object({
  [ENV.connection]: connectionSchema.default(DEFAULT_CONNECTION),
  [ENV.serviceVariant]: z
    .string()
    .optional()
    .transform((v) => v?.trim().toLowerCase() || undefined)
    .pipe(
      z
        .enum(serviceVariants, { error: `expected one of ${serviceVariants.join(', ')}` })
        .default(DEFAULT_SERVICE_VARIANT),
    ),
  [ENV.eventSource]: z.string().min(1).optional(),
  [ENV.actionsIdempotencyTable]: z.string().min(1).optional(),
  [ENV.actionsIdempotencyExpiresSeconds]: positiveInt(7 * 24 * 3600),
  [ENV.actionsArchiveBucket]: z.string().min(1).optional(),
  [ENV.actionsStateTable]: z.string().min(1).optional(),
  [ENV.actionsReferenceLookbackSeconds]: positiveInt(300),
});

/** The `ACTIONS_*` settings every action shares (a connection's `actions` may set them too). */
export const commonActionSettingNames: readonly string[] = Object.keys(commonSchema.shape).filter((k) =>
  k.startsWith('ACTIONS_'),
);

/**
 * One section per action, keyed by its settings' `section`: each action's `settings.ts` adds its
 * own here by declaration merging, so nothing central names an action's settings.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each action's settings module.
export interface ActionSections {}

export interface CommonActionsConfig {
  /** Connection whose open sendings the scheduled tracker polls (events carry their own). */
  connection: string;
  /** Service variant: which transfer chain exists (`ACCOUNTING_SERVICE_VARIANT`). */
  variant: ServiceVariant;
  /**
   * The only event `source` the actions act on: the poller's (`EVENT_SOURCE`, else
   * `accounting.<connection>`). Routes match it; an event from any other source is invalid.
   */
  eventSource: string;
  idempotency: { tableName?: string; expiresAfterSeconds: number };
  archiveBucket?: string;
  stateTable?: string;
  /** How far before the source's `ModifiedDate` to look for an existing target document. */
  referenceLookbackSeconds: number;
}

export interface ActionsConfig extends CommonActionsConfig, ActionSections {}

/** The shared part; throws `ConfigError` naming every malformed key. */
export function loadCommonActionsConfig(env: Env): CommonActionsConfig {
  const e = parseEnvSection(commonSchema, env);
  return {
    connection: e[ENV.connection],
    variant: e[ENV.serviceVariant],
    eventSource: connectionEventSource({ name: e[ENV.connection], source: e[ENV.eventSource] }),
    idempotency: {
      ...(e[ENV.actionsIdempotencyTable] ? { tableName: e[ENV.actionsIdempotencyTable] } : {}),
      expiresAfterSeconds: e[ENV.actionsIdempotencyExpiresSeconds],
    },
    ...(e[ENV.actionsArchiveBucket] ? { archiveBucket: e[ENV.actionsArchiveBucket] } : {}),
    ...(e[ENV.actionsStateTable] ? { stateTable: e[ENV.actionsStateTable] } : {}),
    referenceLookbackSeconds: e[ENV.actionsReferenceLookbackSeconds],
  };
}

/**
 * The shared part and the sections of `settings` (an action function: its own; the registry's
 * loader, `actions-config.ts`: every action's). Throws one `ConfigError` naming every malformed key
 * of every section. A Lambda function loads only its own action's section, so its bundle holds no
 * other action.
 */
export function loadActionsConfigOf(env: Env, settings: readonly ActionSettings[]): ActionsConfig {
  const { common, ...sections } = loadSections({
    common: () => loadCommonActionsConfig(env),
    ...Object.fromEntries(settings.map((s) => [s.section, () => s.load(env)])),
  }) as { common: CommonActionsConfig } & Record<string, unknown>;
  return { ...common, ...sections } as ActionsConfig;
}

/** Returns a resource name a handler cannot run without, or throws naming the env var. */
export function requireSetting(value: string | undefined, envName: string): string {
  if (value === undefined || value === '') {
    throw new ConfigError([
      { field: envName, expected: 'required by this function, expected a resource name' },
    ]);
  }
  return value;
}
