/**
 * A statement file in → one `BankTransaction.Received` per credit transaction on the bus. Nothing
 * is liquidated here: the payment action does that per event, once per transaction (its id is
 * derived from the connection, the own account and the bank's id), so a statement imported twice,
 * or two statements that overlap, liquidate nothing twice. A statement that cannot be read
 * publishes nothing (`StatementFormatError` names every problem).
 */
import { connectionEventSource } from '../connection.js';
import {
  BANK_TRANSACTION_RECEIVED,
  bankTransactionIdempotencyKey,
  bankTransactionReceivedEntry,
  bankTransactionRecordId,
} from '../events/bank-events.js';
import { parseWithEntry } from '../events/catalog.js';
import { ENVELOPE_VERSION } from '../events/catalog-entry.js';
import type { BusEvent, Clock, EventPublisher, Logger } from '../ports.js';
import type { BankTransaction, ParsedStatement } from './bank-transaction.js';
import { parseStatement } from './parse-statement.js';

export interface ImportStatementDeps {
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  /** The event source of the connection's events (the poller's). */
  eventSource?: string;
}

export interface StatementInput {
  connection: string;
  /** Where the file came from (object key or file name), carried in the events. */
  key: string;
  /** The account's currency for GPC files that carry none. */
  defaultCurrency: string;
}

export interface ImportedStatement {
  format: ParsedStatement['format'];
  account: string;
  /** `BankTransaction.Received` events published (one per credit transaction). */
  published: number;
  /** Entries that are no credits to match (debits, pending, reversals). */
  skipped: number;
}

/** Events per `publish` call (EventBridge takes 10 per PutEvents; the adapter batches further). */
const BATCH = 10;

/** The `BankTransaction.Received` event of one transaction. */
export function receivedEvent(
  deps: Pick<ImportStatementDeps, 'clock' | 'eventSource'>,
  connection: string,
  transaction: BankTransaction,
  statement: { format: ParsedStatement['format'] | 'assignment'; key?: string },
  target?: { recordType: 'IssuedInvoice' | 'IssuedAdvanceInvoice'; id: string },
): BusEvent {
  const id = bankTransactionRecordId(connection, transaction.account, transaction.transactionId);
  const detail = parseWithEntry(bankTransactionReceivedEntry, {
    version: ENVELOPE_VERSION,
    connection,
    recordType: 'BankTransaction',
    id,
    change: 'Received',
    modifiedDate: null,
    idempotencyKey: bankTransactionIdempotencyKey(connection, id, target?.id),
    occurredAt: deps.clock.now().toISOString(),
    statement,
    transaction,
    ...(target ? { target } : {}),
  });
  return {
    source: deps.eventSource ?? connectionEventSource({ name: connection }),
    detailType: BANK_TRANSACTION_RECEIVED,
    detail,
    time: deps.clock.now(),
  };
}

export async function importStatement(
  deps: ImportStatementDeps,
  input: StatementInput,
  bytes: Uint8Array,
): Promise<ImportedStatement> {
  const statement = parseStatement(bytes, { defaultCurrency: input.defaultCurrency });
  const events = statement.transactions.map((t) =>
    receivedEvent(deps, input.connection, t, { format: statement.format, key: input.key }),
  );
  for (let i = 0; i < events.length; i += BATCH) await deps.publisher.publish(events.slice(i, i + BATCH));
  deps.logger.info('bank statement imported', {
    connection: input.connection,
    key: input.key,
    format: statement.format,
    transactions: events.length,
    skipped: statement.skipped,
  });
  return {
    format: statement.format,
    account: statement.account,
    published: events.length,
    skipped: statement.skipped,
  };
}
