/**
 * Loads the deployment's configuration.
 *
 * Every setting has a name (`scheduleRateMinutes`), and is read, in this order, from CDK context
 * (`npx cdk deploy -c scheduleRateMinutes=5`, or `cdk.json` → `context`), from the environment
 * variable `ACCOUNTING_EVENTS_<UPPER_SNAKE_NAME>` (`ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES=5`), or
 * falls back to its default (./schema.ts). Values from the command line and the environment are
 * strings; the schema coerces them. One error lists every malformed setting with what was expected.
 */
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { ConfigError, type Env, issuesOf, loadSections } from '#functions/shared/config.js';
import {
  baseInfraConfigSchema,
  INFRA_CONFIG_KEYS,
  type InfraConfig,
  type InfraConfigInput,
  infraConfigSchema,
} from './schema.js';

/** `scheduleRateMinutes` → `ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES`. */
export function envNameOf(key: string): string {
  return `ACCOUNTING_EVENTS_${key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

export interface InfraConfigSources {
  /** CDK context lookup (`node.tryGetContext`). */
  context: (key: string) => unknown;
  env: Readonly<Record<string, string | undefined>>;
}

/** Where a setting comes from, for an issue: `key (context 'key' or ACCOUNTING_EVENTS_KEY)[rest]`. */
function settingField(path: readonly PropertyKey[]): string {
  const [key, ...rest] = path.map(String);
  if (key === undefined) return '(config)';
  return `${key} (context '${key}' or ${envNameOf(key)})${rest.length > 0 ? `[${rest.join('.')}]` : ''}`;
}

/** The deployment's own section: every setting of the schema. */
function deploymentSection(raw: Record<string, unknown>): InfraConfig {
  const parsed = infraConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(issuesOf(parsed.error, settingField), { cause: parsed.error });
  return parsed.data as InfraConfig;
}

/**
 * A section the functions read (`actions`: the action settings, `intakeSettings`: the intake's),
 * checked with that section's own loader, as the functions will read it; its issues name the setting
 * and the variable. A value the deployment schema refuses is left to the deployment section.
 */
function functionSection(
  raw: Record<string, unknown>,
  key: 'actions' | 'intakeSettings',
  load: (env: Env) => unknown,
) {
  const settings = baseInfraConfigSchema.shape[key].safeParse(raw[key]);
  if (!settings.success) return;
  try {
    load(settings.data);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      error.issues.map((i) => ({ field: settingField([key, i.field]), expected: i.expected })),
      { cause: error },
    );
  }
}

/** Reads every setting from context, then the environment, then defaults; throws one `ConfigError` listing every problem of every section. */
export function loadInfraConfig(sources: InfraConfigSources): InfraConfig {
  const raw: Record<string, unknown> = {};
  for (const key of INFRA_CONFIG_KEYS) {
    const fromContext = sources.context(key);
    const value = fromContext !== undefined ? fromContext : sources.env[envNameOf(key)];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  return loadSections({
    deployment: () => deploymentSection(raw),
    actions: () => functionSection(raw, 'actions', loadActionsConfig),
    intake: () => functionSection(raw, 'intakeSettings', loadIntakeConfig),
  }).deployment;
}

/** The configuration with every default but the given settings (an `sk` single-company deployment also needs `accountingBaseUrl`). */
export function defaultInfraConfig(overrides: Partial<InfraConfigInput> = {}): InfraConfig {
  return loadInfraConfig({ context: (key) => (overrides as Record<string, unknown>)[key], env: {} });
}
