/**
 * The Fio banka API, polled: `last` answers the movements since the server-side cursor and moves
 * the cursor. At most one request per 30 s per token (Fio answers 409 to more), so every request
 * waits its turn here. The cursor the server keeps moves on every download, even one whose events
 * never reached the bus (a crash in between); so our own cursor (the highest movement id
 * published) is kept, and the first request after a start sets the server's back to it
 * (`set-last-id`): a download lost that way is downloaded again, and the transaction ids keep the
 * payment action from liquidating anything twice.
 */
import type { Clock, EventPublisher, Logger } from '../ports.js';
import { parseFio } from './fio.js';
import { receivedEvent } from './import-statement.js';

/** Fio's limit: one request per token per 30 s. */
export const FIO_MIN_INTERVAL_MS = 30_000;

export interface FioApi {
  /** `GET …/last/{token}/transactions.json`: the statement since the server's cursor. */
  last(): Promise<unknown>;
  /** `GET …/set-last-id/{token}/{id}/`: moves the server's cursor to after `id`. */
  setLastId(id: number): Promise<void>;
}

export interface FioCursorStore {
  get(): Promise<number | undefined>;
  put(id: number): Promise<void>;
}

export interface FioPollDeps {
  api: FioApi;
  cursor: FioCursorStore;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  connection: string;
  defaultCurrency?: string;
  eventSource?: string;
}

export type FioPollResult =
  | { kind: 'waiting'; waitMs: number }
  | { kind: 'rewound'; to: number }
  | { kind: 'downloaded'; published: number; lastId: number | undefined };

/** One poller per token: `poll()` makes at most one request, and none within 30 s of the last. */
export function createFioPoller(deps: FioPollDeps): { poll(): Promise<FioPollResult> } {
  let lastRequestAt: number | undefined;
  let rewound = false;
  return {
    async poll() {
      const now = deps.clock.now().getTime();
      if (lastRequestAt !== undefined && now - lastRequestAt < FIO_MIN_INTERVAL_MS)
        return { kind: 'waiting', waitMs: FIO_MIN_INTERVAL_MS - (now - lastRequestAt) };
      lastRequestAt = now;
      const cursor = await deps.cursor.get();
      if (!rewound) {
        rewound = true;
        if (cursor !== undefined) {
          await deps.api.setLastId(cursor);
          deps.logger.info('fio cursor set back', { connection: deps.connection, to: cursor });
          return { kind: 'rewound', to: cursor };
        }
      }
      const statement = parseFio(await deps.api.last());
      const fresh = statement.transactions.filter(
        (t) => cursor === undefined || Number(t.transactionId) > cursor,
      );
      const events = fresh.map((t) =>
        receivedEvent(deps, deps.connection, t, { format: 'fio', key: 'fio-api' }),
      );
      for (let i = 0; i < events.length; i += 10) await deps.publisher.publish(events.slice(i, i + 10));
      if (statement.lastId !== undefined && (cursor === undefined || statement.lastId > cursor))
        await deps.cursor.put(statement.lastId);
      deps.logger.info('fio statement downloaded', {
        connection: deps.connection,
        published: events.length,
        skipped: statement.skipped,
      });
      return { kind: 'downloaded', published: events.length, lastId: statement.lastId };
    },
  };
}
