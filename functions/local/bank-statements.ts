/**
 * Bank statements locally: a file dropped into `<data dir>/bank-statements/<connection>/` is read
 * by `run` (checked every few seconds), its credit transactions go onto the local bus as
 * `BankTransaction.Received`, and the file moves to `imported/` beside it (`rejected/` when it
 * cannot be read, with a warning naming the problems). A file whose import was cut short (a crash)
 * is still in the folder and is imported again at the next start: the transactions keep their ids,
 * so the payment action liquidates nothing twice. With `BANK_FIO_TOKEN` set, `run` also polls the
 * Fio API for the connection every 30 s (core/bank/fio-poll.ts).
 */
import { mkdir, readdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { createFioApi } from '../adapters/http/fio-api.js';
import { StatementFormatError } from '../core/bank/bank-transaction.js';
import { createFioPoller, FIO_MIN_INTERVAL_MS } from '../core/bank/fio-poll.js';
import { type ImportedStatement, importStatement } from '../core/bank/import-statement.js';
import { BANK_STATEMENTS_FOLDER } from '../core/bank/statement-drop.js';
import type { Clock, EventPublisher, Logger } from '../core/ports.js';
import { fileFioCursor } from './fio-cursor.js';
import { UsageError } from './usage-error.js';

/** The folder `run` watches for one connection's statements. */
export function statementsDir(dataDir: string, connection: string): string {
  return join(dataDir, BANK_STATEMENTS_FOLDER, connection);
}

export interface StatementPorts {
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
}

/** Imports one statement file of `connection`; throws `StatementFormatError` when it cannot be read. */
export async function importStatementFile(
  ports: StatementPorts,
  file: string,
  options: { connection: string; defaultCurrency: string; key?: string },
): Promise<ImportedStatement> {
  const bytes = new Uint8Array(await readFile(file));
  return importStatement(
    ports,
    { connection: options.connection, key: options.key ?? file, defaultCurrency: options.defaultCurrency },
    bytes,
  );
}

async function moveTo(dir: string, sub: string, name: string): Promise<void> {
  await mkdir(join(dir, sub), { recursive: true });
  await rename(join(dir, name), join(dir, sub, `${name}`));
}

/** One pass over the connections' folders: every file in them imported and moved aside. */
export async function importDroppedStatements(
  ports: StatementPorts,
  options: { dataDir: string; connections: readonly string[]; defaultCurrency: string },
): Promise<number> {
  let imported = 0;
  for (const connection of options.connections) {
    const dir = statementsDir(options.dataDir, connection);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      if (!(await stat(path)).isFile()) continue;
      try {
        const result = await importStatementFile(ports, path, {
          connection,
          defaultCurrency: options.defaultCurrency,
          key: `${BANK_STATEMENTS_FOLDER}/${connection}/${name}`,
        });
        await moveTo(dir, 'imported', name);
        imported += result.published;
      } catch (error) {
        if (!(error instanceof StatementFormatError)) throw error;
        ports.logger.warn('bank statement rejected', {
          connection,
          file: name,
          reasons: error.reasons.slice(0, 10),
        });
        await moveTo(dir, 'rejected', name);
      }
    }
  }
  return imported;
}

/** Checks the folders every `intervalMs` until stopped; a failing pass is logged and tried again. */
export function watchStatements(
  ports: StatementPorts,
  options: {
    dataDir: string;
    connections: () => readonly string[];
    defaultCurrency: string;
    intervalMs: number;
  },
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let busy = false;
  const pass = () => {
    if (busy || stopped) return;
    busy = true;
    running = importDroppedStatements(ports, {
      dataDir: options.dataDir,
      connections: options.connections(),
      defaultCurrency: options.defaultCurrency,
    })
      .catch((error: unknown) => {
        ports.logger.warn('bank statements pass failed', { error: (error as Error).message });
      })
      .finally(() => {
        busy = false;
      });
  };
  pass();
  const timer = setInterval(pass, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** `BANK_FIO_TOKEN`: the Fio API token of the run's connection (64 letters and digits). */
export const FIO_TOKEN_VARIABLE = 'BANK_FIO_TOKEN';

const fioTokenSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]{16,128}$/, {
    error: `${FIO_TOKEN_VARIABLE}: expected the Fio API token (letters and digits)`,
  });

/** The token, when one is set; throws `UsageError` naming the variable (never the value) when malformed. */
export function fioTokenOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const raw = env[FIO_TOKEN_VARIABLE];
  if (raw === undefined || raw.trim() === '') return undefined;
  const parsed = fioTokenSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? FIO_TOKEN_VARIABLE, 'run');
  return parsed.data;
}

/** Polls the Fio API every 30 s (its limit) until stopped; a failed poll is logged and tried again. */
export function pollFio(
  ports: StatementPorts,
  options: { token: string; connection: string; dataDir: string; baseUrl?: string },
): { stop(): Promise<void> } {
  const poller = createFioPoller({
    ...ports,
    api: createFioApi({ token: options.token, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}) }),
    cursor: fileFioCursor(statementsDir(options.dataDir, options.connection)),
    connection: options.connection,
  });
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = poller
      .poll()
      .catch((error: unknown) => {
        ports.logger.warn('fio poll failed', {
          connection: options.connection,
          error: (error as Error).message,
        });
      })
      .finally(() => {
        busy = false;
      });
  };
  tick();
  const timer = setInterval(tick, FIO_MIN_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
