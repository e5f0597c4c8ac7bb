/**
 * The one configuration error, and how a function kind's loader is built from sections.
 *
 * Each section (the accounting client, the AWS resources, the poller, the actions, the intake, the
 * connections, the function's own `LOG_LEVEL`…) is one zod schema with its loader, which throws
 * `ConfigError` naming every bad field of that section. A function kind's loader (poller, action,
 * local runtime, infra) runs its sections with `loadSections`, which throws one `ConfigError` with
 * the problems of every section. An issue names the field and what was expected, never the value,
 * so no secret is echoed.
 */
import * as z from 'zod';
import { ENV } from './env-names.js';
import { type LogLevel, logLevels } from './logger.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** One bad setting: the variable (or field) at fault and what was expected. */
export interface ConfigIssue {
  readonly field: string;
  readonly expected: string;
}

const formatIssue = (i: ConfigIssue) => `${i.field}: ${i.expected}`;

/** The configuration is invalid; `issues` lists every bad field of every section checked. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly issues: readonly ConfigIssue[],
    options?: { cause?: unknown },
  ) {
    super(`invalid configuration: ${issues.map(formatIssue).join('; ')}`, options);
  }

  /** `FIELD: expected`, one line per issue. */
  get problems(): string[] {
    return this.issues.map(formatIssue);
  }
}

/** One issue per zod issue; the field is the first path segment (a variable) unless `fieldOf` says. */
export function issuesOf(
  error: z.ZodError,
  fieldOf: (path: readonly PropertyKey[]) => string = (path) => String(path[0] ?? '(config)'),
): ConfigIssue[] {
  return error.issues.map((i) => ({ field: fieldOf(i.path), expected: i.message }));
}

/**
 * The section's variables from `env` (blank counts as unset, so defaults apply; `trim`: values
 * without surrounding whitespace), parsed with its schema; throws `ConfigError` naming every bad
 * variable.
 */
export function parseEnvSection<S extends z.ZodObject>(
  schema: S,
  env: Env,
  options: { trim?: boolean } = {},
): z.output<S> {
  const input = Object.fromEntries(
    Object.keys(schema.shape).map((key) => {
      const value = env[key];
      return [key, value?.trim() ? (options.trim ? value.trim() : value) : undefined];
    }),
  );
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ConfigError(issuesOf(parsed.error), { cause: parsed.error });
  return parsed.data;
}

type Loaded<T extends Record<string, () => unknown>> = { [K in keyof T]: ReturnType<T[K]> };

/**
 * Runs every section's loader, each even when an earlier one failed, and returns their results;
 * throws one `ConfigError` with every section's issues when any failed. Other errors propagate.
 */
export function loadSections<T extends Record<string, () => unknown>>(sections: T): Loaded<T> {
  const issues: ConfigIssue[] = [];
  const causes: ConfigError[] = [];
  const loaded: Record<string, unknown> = {};
  for (const [name, load] of Object.entries(sections)) {
    try {
      loaded[name] = load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      causes.push(error);
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) {
    const unique = [...new Map(issues.map((i) => [formatIssue(i), i])).values()];
    throw new ConfigError(unique, { cause: causes.length === 1 ? causes[0] : new AggregateError(causes) });
  }
  return loaded as Loaded<T>;
}

/** The section every Lambda function has: its log level (`LOG_LEVEL`; `warning` = `warn`, default `info`). */
const functionSchema = z.object({
  [ENV.logLevel]: z
    .string()
    .optional()
    .transform((v) => {
      const level = v?.trim().toLowerCase() || undefined;
      return level === 'warning' ? 'warn' : level;
    })
    .pipe(z.enum(logLevels, { error: `expected one of ${logLevels.join(', ')}` }).default('info')),
});

/** `LOG_LEVEL` through its schema; throws `ConfigError` when it names no level. */
export function loadLogLevel(env: Env): LogLevel {
  return parseEnvSection(functionSchema, env)[ENV.logLevel];
}
