/**
 * A statement dropped into object storage at `bank-statements/<connection>/<file>` (S3 on AWS, the
 * watched folder locally): the connection is the key's second segment and must be one the registry
 * knows; the file is imported as any statement (./import-statement.ts). What cannot be imported —
 * a key outside the folder, an unknown connection, an object gone, a file no parser reads — is
 * refused with its reasons and publishes nothing; a failure to read or publish is thrown, so the
 * drop is tried again (the transactions keep their ids: the payment action liquidates nothing twice).
 */
import type { ServiceVariant } from '#functions/accounting/collections.js';
import { CONNECTION_NAME_PATTERN, connectionEventSource } from '../connection.js';
import type { ConnectionRegistry } from '../connections/registry.js';
import type { Clock, EventPublisher, Logger } from '../ports.js';
import { StatementFormatError } from './bank-transaction.js';
import { type ImportedStatement, importStatement } from './import-statement.js';

/** The folder (key prefix, without its `/`) statements are dropped into, one sub-folder per connection. */
export const BANK_STATEMENTS_FOLDER = 'bank-statements';

/** The account currency a GPC file without one is in: the variant's home currency. */
export function homeCurrencyOf(variant: ServiceVariant): string {
  return variant === 'cz' ? 'CZK' : 'EUR';
}

/** The connection a dropped statement's key names, or why the key names none. */
export function connectionOfStatementKey(key: string): { connection: string } | { refused: string } {
  const [folder, connection, ...rest] = key.split('/');
  if (folder !== BANK_STATEMENTS_FOLDER || rest.length === 0 || rest.some((part) => part === ''))
    return {
      refused: `key: expected ${BANK_STATEMENTS_FOLDER}/<connection>/<file>, got ${key.slice(0, 200)}`,
    };
  if (!connection || !CONNECTION_NAME_PATTERN.test(connection))
    return { refused: `key: '${String(connection).slice(0, 60)}' is no connection name` };
  return { connection };
}

export interface DroppedStatementDeps {
  readonly registry: Pick<ConnectionRegistry, 'get'>;
  /** The object's bytes; `undefined` when it no longer exists. */
  read(key: string): Promise<Uint8Array | undefined>;
  readonly publisher: EventPublisher;
  readonly clock: Clock;
  readonly logger: Logger;
}

export type DroppedStatementOutcome =
  | ({ readonly status: 'imported'; readonly connection: string } & ImportedStatement)
  | { readonly status: 'refused'; readonly reasons: readonly string[] };

export async function importDroppedStatement(
  deps: DroppedStatementDeps,
  key: string,
): Promise<DroppedStatementOutcome> {
  const refuse = (reasons: readonly string[]): DroppedStatementOutcome => {
    deps.logger.warn('bank statement refused', { key: key.slice(0, 300), reasons: reasons.slice(0, 10) });
    return { status: 'refused', reasons };
  };
  const named = connectionOfStatementKey(key);
  if ('refused' in named) return refuse([named.refused]);
  const entry = await deps.registry.get(named.connection);
  if (!entry) return refuse([`connection: no connection '${named.connection}' in the registry`]);
  const bytes = await deps.read(key);
  if (!bytes) return refuse(['object: no longer exists']);
  try {
    const imported = await importStatement(
      {
        publisher: deps.publisher,
        clock: deps.clock,
        logger: deps.logger,
        eventSource: connectionEventSource(entry),
      },
      { connection: entry.name, key, defaultCurrency: homeCurrencyOf(entry.variant) },
      bytes,
    );
    return { status: 'imported', connection: entry.name, ...imported };
  } catch (error) {
    if (!(error instanceof StatementFormatError)) throw error;
    return refuse(error.reasons);
  }
}
