/**
 * The connection (company) whose events these are: it names them in event envelopes, the event
 * `source` (`accounting.<connection>`), checkpoint keys, archive keys and the e-invoice tracker's
 * open-sendings list. The poller and the actions read it from one variable, `ACCOUNTING_CONNECTION`.
 */
import * as z from 'zod';

export const DEFAULT_CONNECTION = 'default';

/**
 * A connection name: lower-case letters, digits and `-`, starting with a letter or digit, at most
 * 40 characters. It is a path segment of archive keys, checkpoint keys and the secret
 * `<prefix>/connections/<name>`, so nothing in it may climb (`..`) or separate (`/`).
 */
export const CONNECTION_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;

export const connectionSchema = z
  .string({ error: 'expected a name: lower-case letters, digits and `-`, at most 40 characters' })
  .regex(
    CONNECTION_NAME_PATTERN,
    'expected lower-case letters, digits and `-`, starting with a letter or digit, at most 40 characters',
  );

/** Every connection's events have a `source` starting with this (`accounting.<connection>`). */
export const CONNECTION_SOURCE_PREFIX = 'accounting.';

/** What names a connection's events: its name, and the custom `source` its entry may set. */
export interface ConnectionSourceOf {
  readonly name: string;
  readonly source?: string | undefined;
}

/**
 * The `source` of a connection's events: the entry's own `source` when it sets one, otherwise
 * `accounting.<name>`. The one place a connection's source is built (poller, actions, intake, infra).
 */
export function connectionEventSource(entry: ConnectionSourceOf): string {
  return entry.source ?? `${CONNECTION_SOURCE_PREFIX}${entry.name}`;
}
