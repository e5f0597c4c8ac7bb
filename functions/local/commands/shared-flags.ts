/** Flags shared by the commands that talk to the service (`run`, `sync`, `backfill`, `replay`). */
import * as z from 'zod';
import { allCollectionNames, findCollection } from '#functions/accounting/collections.js';
import type { DetailType } from '#functions/core/event-catalog.js';
import { type FlagSpecs, formatZodError, listFlag, urlFlag } from '../command.js';
import { UsageError } from '../usage-error.js';

export const DEFAULT_DATA_DIR = '.local';

/**
 * A `--type` flag checked against the event catalog with its zod schema (the catalog loads on first
 * use, so commands that do not need it start without it); a `UsageError` naming the flag otherwise.
 */
export async function detailTypeFlag(value: string, command: string): Promise<DetailType> {
  const { detailTypeSchema } = await import('#functions/core/event-catalog.js');
  const result = z.object({ type: detailTypeSchema }).safeParse({ type: value });
  if (!result.success) throw new UsageError(formatZodError(result.error), command);
  return result.data.type;
}

export const connectionFlags = {
  'no-sandbox': {
    type: 'boolean',
    description: 'Do not start the sandbox; talk to the service at --base-url (or ACCOUNTING_BASE_URL).',
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    description: 'Base URL of the real service (implies --no-sandbox). Env: ACCOUNTING_BASE_URL.',
  },
  'auth-url': {
    type: 'string',
    value: 'URL',
    description: 'Token server for OAuth client credentials. Env: ACCOUNTING_AUTH_URL.',
  },
  'data-dir': {
    type: 'string',
    value: 'DIR',
    description: 'Where the embedded DynamoDB and S3 keep their data (survives restarts).',
    defaultHelp: DEFAULT_DATA_DIR,
  },
  json: { type: 'boolean', description: 'Machine-readable JSON log lines instead of the live view.' },
} as const satisfies FlagSpecs;

export const collectionsFlag = {
  collections: {
    type: 'string',
    value: 'A,B',
    description: 'Collections to poll, comma-separated (case-insensitive).',
    defaultHelp: 'every document collection and BusinessPartners',
  },
} as const satisfies FlagSpecs;

export const eventsOutFlag = {
  'events-out': {
    type: 'string',
    value: 'FILE',
    description: 'Append every published event to FILE as one JSON line.',
  },
} as const satisfies FlagSpecs;

export const eventsOutSchema = z.string().min(1, { message: 'expected a file path' }).optional();

export const collectionsSchema = listFlag(
  'collection',
  // Names of either service variant; the runtime checks them against the configured one.
  (item) => findCollection(item, 'sk')?.name ?? findCollection(item, 'cz')?.name,
  allCollectionNames,
);

export const connectionSchemaShape = {
  'no-sandbox': z.boolean().default(false),
  'base-url': urlFlag.optional(),
  'auth-url': urlFlag.optional(),
  'data-dir': z.string().min(1, { message: 'expected a directory path' }).default(DEFAULT_DATA_DIR),
  json: z.boolean().default(false),
};

/** The connection part of a command's options, after validation. */
export interface ConnectionOptions {
  /** Start the in-process sandbox (no --no-sandbox and no --base-url). */
  sandbox: boolean;
  baseUrl?: string;
  authUrl?: string;
  dataDir: string;
  json: boolean;
}

export function toConnection(values: {
  'no-sandbox': boolean;
  'base-url'?: string | undefined;
  'auth-url'?: string | undefined;
  'data-dir': string;
  json: boolean;
}): ConnectionOptions {
  return {
    sandbox: !values['no-sandbox'] && values['base-url'] === undefined,
    ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
    ...(values['auth-url'] !== undefined ? { authUrl: values['auth-url'] } : {}),
    dataDir: values['data-dir'],
    json: values.json,
  };
}
