/**
 * An action's own settings: the `ACTIONS_*` variables it reads, each with its zod schema, its
 * default as the docs show it and one line of description, and how they become the action's
 * section of `ActionsConfig`. An action declares them in its folder (`<name>/settings.ts`) and
 * names them in its registry entry; the environment names a connection may set, the settings
 * table of the README and the loader of the actions' configuration all follow from the registry
 * (`actions-config.ts`), so a new setting is one entry here and nothing central.
 *
 * A settings module also adds its section to `ActionSections` (`config.ts`) by declaration
 * merging, so `config.<section>` is typed wherever the configuration is read.
 */
import * as z from 'zod';
import { type Env, parseEnvSection } from '#functions/shared/config.js';

/** One variable of an action's settings. */
export interface SettingSpec<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  /** The default as the docs show it (`—` when there is none). */
  readonly default: string;
  /** What it does, one line (the README's settings table). */
  readonly description: string;
}

export type SettingSpecs = Readonly<Record<string, SettingSpec>>;

/** The parsed variables of `S`, by name. */
export type ParsedSettings<S extends SettingSpecs> = { [K in keyof S]: z.output<S[K]['schema']> };

/** An action's settings: its section's name, its variables, and the loader of its section. */
export interface ActionSettings<K extends string = string, T = unknown> {
  /** The key of `ActionsConfig` the section is found under. */
  readonly section: K;
  readonly specs: SettingSpecs;
  /** The variables, in declaration order. */
  readonly names: readonly string[];
  /** The section from the environment; throws `ConfigError` naming every bad variable. */
  load(env: Env): T;
}

/** The section type of an `ActionSettings`. */
export type SectionOf<A> = A extends ActionSettings<string, infer T> ? T : never;

/** Thrown when an action declares a malformed setting (a programming error, caught by the registry's tests). */
export class ActionSettingsError extends Error {
  override readonly name = 'ActionSettingsError';
}

const SETTING_NAME = /^ACTIONS_[A-Z0-9_]+$/;

/**
 * Declares an action's settings. `refine` checks the variables together (a problem names the
 * variable at fault through its `path`).
 */
export function defineActionSettings<K extends string, S extends SettingSpecs, T>(
  section: K,
  specs: S,
  build: (parsed: ParsedSettings<S>) => T,
  refine?: (parsed: ParsedSettings<S>, ctx: z.RefinementCtx) => void,
): ActionSettings<K, T> {
  for (const name of Object.keys(specs)) {
    if (!SETTING_NAME.test(name)) {
      throw new ActionSettingsError(`setting '${name}' of section '${section}' is not an ACTIONS_* name`);
    }
  }
  const base = z.object(Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, spec.schema])));
  const schema = refine ? base.superRefine((value, ctx) => refine(value as ParsedSettings<S>, ctx)) : base;
  return {
    section,
    specs,
    names: Object.keys(specs),
    load: (env) => build(parseEnvSection(schema, env) as ParsedSettings<S>),
  };
}

/** `true`/`false` (and `1`/`0`, `yes`/`no`, `on`/`off`), with a default. */
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
      error: 'expected one of true, false, 1, 0, yes, no, on, off',
    })
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v)));

/** A positive whole number, with a default. */
export const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a positive integer' })
    .int({ error: 'expected a positive integer' })
    .positive({ error: 'expected a positive integer' })
    .optional()
    .transform((v) => v ?? fallback);

/** A comma-separated list (blank entries dropped). */
export const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );
