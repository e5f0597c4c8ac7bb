/**
 * A connection entry checked against every action's settings: the names its `actions` set must
 * be settings some action of the registry declares (or the shared ones), with valid values. The
 * registry's writers run it (`connections add`, the local registry file); readers on Lambda parse
 * entries with `parseConnectionEntry` alone, and each action function checks its own section.
 */
import { ConfigError } from '#functions/shared/config.js';
import { actionSettingNames, loadActionsConfig } from '../actions/actions-config.js';
import {
  type ConnectionEntry,
  ConnectionEntryError,
  DEPLOYMENT_ACTION_SETTINGS,
  parseConnectionEntry,
} from './connection-entry.js';

/** The problems of a connection's action settings against the registry's: unknown names, bad values. */
export function connectionActionProblems(actions: Readonly<Record<string, string>>): string[] {
  const unknown = Object.keys(actions).filter((name) => !actionSettingNames.includes(name));
  if (unknown.length > 0) {
    return unknown.map((name) => `actions.${name}: not an action setting (docs/actions.md)`);
  }
  try {
    loadActionsConfig(actions);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((i) => `actions.${i.field}: ${i.expected}`);
  }
}

/**
 * `parseConnectionEntry` and its action settings against the registry's, every problem of both in
 * one `ConnectionEntryError`.
 */
export function parseCheckedConnectionEntry(input: unknown, label?: string): ConnectionEntry {
  const actions = (input as { actions?: unknown } | null)?.actions;
  const known =
    typeof actions === 'object' && actions !== null
      ? Object.fromEntries(
          Object.entries(actions).filter(
            ([name, value]) => typeof value === 'string' && !DEPLOYMENT_ACTION_SETTINGS.includes(name),
          ),
        )
      : {};
  const problems = connectionActionProblems(known as Record<string, string>);
  let entry: ConnectionEntry;
  try {
    entry = parseConnectionEntry(input, label);
  } catch (error) {
    if (!(error instanceof ConnectionEntryError) || problems.length === 0) throw error;
    const all = [...new Set([...error.problems, ...problems])];
    throw new ConnectionEntryError(error.entry, all, { cause: error });
  }
  if (problems.length > 0) throw new ConnectionEntryError(entry.name, problems);
  return entry;
}
