/**
 * `connections add`: the entry from `--from-json FILE` and/or the flags (a flag wins over the same
 * setting in the file), validated with the registry's entry schema. Errors name the entry and the
 * setting with its flag: `connection 'acme': baseUrl (--base-url): expected …`.
 */

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findCollection, type ServiceVariant, serviceVariants } from '../accounting/collections.js';
import { connectionSchema } from '../core/connection.js';
import { parseCheckedConnectionEntry } from '../core/connections/checked-entry.js';
import {
  CONNECTION_DEFAULTS,
  type ConnectionEntry,
  ConnectionEntryError,
} from '../core/connections/connection-entry.js';
import { UsageError } from './usage-error.js';

/** The `add` flags after parsing (strings and numbers, not yet an entry). */
export interface EntryFlags {
  name?: string | undefined;
  variant?: string | undefined;
  'base-url'?: string | undefined;
  'auth-url'?: string | undefined;
  'credentials-secret'?: string | undefined;
  collections?: string | undefined;
  'poll-interval'?: number | undefined;
  paused: boolean;
  'rate-limit'?: number | undefined;
  burst?: number | undefined;
  action?: string[] | undefined;
  'from-json'?: string | undefined;
}

const FLAG_OF: Record<string, string> = {
  name: '--name',
  variant: '--variant',
  baseUrl: '--base-url',
  authUrl: '--auth-url',
  credentialsSecret: '--credentials-secret',
  collections: '--collections',
  pollIntervalSeconds: '--poll-interval',
  paused: '--paused',
  'rateLimit.requestsPerSecond': '--rate-limit',
  'rateLimit.burst': '--burst',
  rateLimit: '--rate-limit / --burst',
  actions: '--action',
};

async function readJsonEntry(path: string, cwd: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw new UsageError(
      `--from-json: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`--from-json: ${path} is not valid JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new UsageError(`--from-json: ${path} must hold one connection entry (a JSON object)`);
  }
  return json as Record<string, unknown>;
}

function actionsOf(pairs: readonly string[]): Record<string, string> {
  const actions: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new UsageError(`--action: expected NAME=VALUE such as ACTIONS_ISDOC_PDF=true, got "${pair}"`);
    actions[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return actions;
}

/** Collection names as the variant spells them (case-insensitive); unknown ones stay for the schema to name. */
function collectionsOf(list: string, variant: unknown): string[] {
  const v = serviceVariants.includes(variant as ServiceVariant) ? (variant as ServiceVariant) : undefined;
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => (v ? (findCollection(item, v)?.name ?? item) : item));
}

/** Merges the JSON file and the flags into the entry input (flags win). */
function mergeInput(base: Record<string, unknown>, f: EntryFlags): Record<string, unknown> {
  const input: Record<string, unknown> = { ...base };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) input[key] = value;
  };
  set('name', f.name);
  set('variant', f.variant?.trim().toLowerCase());
  set('baseUrl', f['base-url']);
  set('authUrl', f['auth-url']);
  set('credentialsSecret', f['credentials-secret']);
  set(
    'collections',
    f.collections === undefined
      ? undefined
      : collectionsOf(f.collections, input.variant ?? CONNECTION_DEFAULTS.variant),
  );
  set('pollIntervalSeconds', f['poll-interval'] === undefined ? undefined : f['poll-interval'] / 1000);
  if (f.paused) input.paused = true;
  if (f['rate-limit'] !== undefined || f.burst !== undefined) {
    const current = (base.rateLimit ?? CONNECTION_DEFAULTS.rateLimit) as Record<string, unknown>;
    input.rateLimit = {
      ...current,
      ...(f['rate-limit'] !== undefined ? { requestsPerSecond: f['rate-limit'] } : {}),
      ...(f.burst !== undefined ? { burst: f.burst } : {}),
    };
  }
  if (f.action !== undefined)
    input.actions = { ...(base.actions as object | undefined), ...actionsOf(f.action) };
  return input;
}

/** Names each bad setting with its flag: `baseUrl (--base-url): expected …`. */
function withFlags(error: ConnectionEntryError): ConnectionEntryError {
  const problems = error.problems.map((problem) => {
    const at = problem.indexOf(': ');
    const path = problem.slice(0, at);
    const flag = FLAG_OF[path] ?? FLAG_OF[path.split('.')[0] ?? ''];
    return flag ? `${path} (${flag})${problem.slice(at)}` : problem;
  });
  return new ConnectionEntryError(error.entry, problems, { cause: error });
}

/** The validated entry of `connections add`; throws `ConnectionEntryError` naming the entry and settings. */
export async function entryFromFlags(
  flags: EntryFlags,
  cwd: string,
  /** `--seal-credentials`: the sealed reference of the entry's name (its `credentialsSecret`). */
  seal?: (name: string) => Promise<string>,
): Promise<ConnectionEntry> {
  const base = flags['from-json'] === undefined ? {} : await readJsonEntry(flags['from-json'], cwd);
  const input = mergeInput(base, flags);
  if (seal) {
    if (input.credentialsSecret !== undefined)
      throw new UsageError(
        '--seal-credentials: the entry names credentialsSecret already; give one of the two',
      );
    const name = connectionSchema.safeParse(input.name);
    // A bad name is the schema's to name (below); only a good one gets sealed credentials.
    if (name.success) input.credentialsSecret = await seal(name.data);
  }
  try {
    return parseCheckedConnectionEntry(input);
  } catch (error) {
    throw error instanceof ConnectionEntryError ? withFlags(error) : error;
  }
}
