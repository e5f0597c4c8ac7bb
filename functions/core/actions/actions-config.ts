/**
 * The actions' configuration loaded from the registry: the shared part (`config.ts`) and the
 * section of every action's own settings (`<name>/settings.ts`), every problem of every section in
 * one `ConfigError`.
 */
import type { Env } from '#functions/shared/config.js';
import type { ActionSettings } from './action-settings.js';
import { type ActionsConfig, commonActionSettingNames, loadActionsConfigOf } from './config.js';
import { actionRegistry } from './registry.js';

/** Each distinct settings of the registry, once (two functions of one action share theirs). */
export const actionSettingsOfRegistry: readonly ActionSettings[] = [
  ...new Set(actionRegistry.flatMap((a) => (a.settings ? [a.settings] : []))),
];

/** The `ACTIONS_*` settings the actions read (a connection's `actions` may set only these). */
export const actionSettingNames: readonly string[] = [
  ...actionSettingsOfRegistry.flatMap((s) => s.names),
  ...commonActionSettingNames,
];

/** The actions' configuration; throws one `ConfigError` naming every malformed key of every section. */
export function loadActionsConfig(env: Env): ActionsConfig {
  return loadActionsConfigOf(env, actionSettingsOfRegistry);
}

/** The defaults, as `loadActionsConfig({})` returns them. */
export function defaultActionsConfig(): ActionsConfig {
  return loadActionsConfig({});
}

const ROWS_START = '<!-- action-settings:start -->';
const ROWS_END = '<!-- action-settings:end -->';

/** The README's rows of every action's settings, in registry order (generated, never edited by hand). */
export function renderActionSettingsRows(
  settings: readonly ActionSettings[] = actionSettingsOfRegistry,
): string {
  return settings
    .flatMap((s) =>
      Object.entries(s.specs).map(([name, spec]) => {
        const fallback =
          spec.default === '—' || spec.default.startsWith('`') || spec.default.startsWith('—')
            ? spec.default
            : `\`${spec.default}\``;
        return `| \`${name}\` | ${fallback} | ${spec.description} |`;
      }),
    )
    .join('\n');
}

/** `text` with the rows between its action-settings markers replaced; `undefined` when it has no markers. */
export function withActionSettingsRows(text: string, rows = renderActionSettingsRows()): string | undefined {
  const start = text.indexOf(ROWS_START);
  const end = text.indexOf(ROWS_END);
  if (start < 0 || end < start) return undefined;
  const header = '| variable | default | meaning |\n|---|---|---|';
  return `${text.slice(0, start + ROWS_START.length)}\n${header}\n${rows}\n${text.slice(end)}`;
}
