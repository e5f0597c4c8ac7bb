/** The local runtime's options and settings that its parts share (`runtime.ts` starts it). */
import type { Sandbox, SandboxOptions } from '#sandbox/index.js';
import type { CollectionName } from '../accounting/collections.js';
import { type AccountingConfig, parseAccountingConfig } from '../accounting/config.js';
import type { DeadLetterStore } from '../adapters/local/dead-letter-store.js';
import type { LocalBus } from '../adapters/local/local-bus.js';
import type { DeliveryPolicy, DeliveryTarget } from '../core/delivery/delivery-targets.js';
import type { ReadinessReport } from '../core/einvoicing/readiness.js';
import type { Clock, Logger } from '../core/ports.js';
import type { Route } from '../core/routes.js';
import type { PollOptions } from '../core/sync/poll-options.js';
import { accountingInputFromEnv, cliFieldName } from './environment.js';
import type { HttpDelivery } from './http-delivery.js';
import type { LocalIntake } from './local-intake.js';
import type { LocalStores } from './local-stores.js';
import type { PollSummary } from './poll-summary.js';
import type { RuntimeUpdate } from './runtime-update.js';

export interface RuntimeOptions {
  /**
   * `false`: talk to the service configured by `baseUrl`/env. `true` or options: start the sandbox
   * in-process. `{ instance }`: use a sandbox someone else started (tests restart the runtime on it).
   */
  sandbox: boolean | { options?: Partial<SandboxOptions>; instance?: Sandbox };
  baseUrl?: string;
  authUrl?: string;
  /** Environment: credentials, client and action settings (names in shared/env-names.ts). */
  env: Record<string, string | undefined>;
  dataDir: string;
  /** The command running the runtime, recorded in the data directory's lock (e.g. `run`). */
  command?: string;
  collections?: readonly CollectionName[];
  intervalMs: number;
  /** `run --interval` was given: with a registry file it wins over each entry's poll interval. */
  intervalFromFlag?: boolean;
  /** Poll the sandbox's N companies, each its own connection `sandbox-1` … `sandbox-N` (`run --companies`). */
  companies?: number;
  /** Poll the connections of this registry file, read again every cycle (`run --connections`). */
  connectionsFile?: string;
  /** With many connections: polls running at once at most (default 8). */
  maxConcurrentPolls?: number;
  actions: boolean;
  eventsOut?: string;
  /** Where a first run starts (`backfill --since`); absent = everything. */
  startFrom?: string;
  /** Overrides of the change detector's options (tests shorten the lookback). */
  poll?: Partial<PollOptions>;
  /**
   * How long one poll starts new pages (default 2 s), counted from its first page: a backfill is
   * read in slices of at least one page each, so its progress moves however slow the machine, and a
   * stop waits for at most the pages in flight. The next slice follows at once.
   */
  pollBudgetMs?: number;
  /** Count the records once before a first run to show the backfill's progress (default true). */
  backfillProgress?: boolean;
  /** HTTP consumers the events are POSTed to, signed (`run --deliver-to`). */
  deliverTo?: readonly DeliveryTarget[];
  /** Retries and timeouts of those deliveries (tests shorten the backoff). */
  deliveryPolicy?: Partial<DeliveryPolicy>;
  /** How often the e-invoice status tracker runs locally; default: the poll interval. */
  trackerIntervalMs?: number;
  /** Serve the e-shop order intake (`POST /intake/<connection>/<source>`, `/intake/<source>`) on this port (0 = ephemeral). */
  intake?: { port: number; host?: string };
  onUpdate?: (update: RuntimeUpdate) => void;
  logger?: Logger;
  clock?: Clock;
}

export interface Runtime {
  readonly bus: LocalBus;
  readonly stores: LocalStores;
  readonly sandbox: Sandbox | undefined;
  /** The (first) connection's name. */
  readonly connection: string;
  readonly collections: readonly CollectionName[];
  /** The HTTP delivery to `deliverTo` (its bus subscribers), when there are targets. */
  readonly deliveries: HttpDelivery | undefined;
  /** The e-shop order intake, when `intake` was given. */
  readonly intake: LocalIntake | undefined;
  /** The bus's dead letters, kept in the data directory (what `dlq ls|redrive` reads). */
  readonly deadLetterStore: DeadLetterStore;
  /** The connections polled so far (one for a plain run). */
  connections(): readonly string[];
  /** The actions' routes on the bus (each route id once); none without actions. */
  routes(): readonly Route[];
  /** The e-invoicing readiness report of each connection it covers (none without actions). */
  readiness(): Promise<ReadinessReport[]>;
  /**
   * Whether any poll was answered so far, and the connections whose credentials the service
   * refuses now (a run that ends with only refusals failed: exit code 1).
   */
  health(): { answered: boolean; refused: readonly string[] };
  /** Events published so far, per detail-type (record events and action outcomes). */
  counts(): ReadonlyMap<string, number>;
  /** One poll of every collection of every connection; events are on the bus when it resolves. */
  pollOnce(): Promise<PollSummary>;
  /** Polls on the interval until `signal` aborts or `durationMs` passes, then stops cleanly. */
  run(options?: { signal?: AbortSignal; durationMs?: number }): Promise<void>;
  /** Waits until every delivery (and what it published) has finished. */
  drain(): Promise<void>;
  stop(reason?: string): Promise<void>;
}

/** How long one local poll starts new pages before it hands back (and the next slice starts). */
export const DEFAULT_POLL_BUDGET_MS = 2_000;
/** `sync --once`: one poll reads every collection to its end (a day is as good as no limit). */
export const ONCE_POLL_BUDGET_MS = 24 * 3_600_000;

/** With many connections, how many polls run at once at most. */
export const DEFAULT_MAX_CONCURRENT_POLLS = 8;

/** The bus journal's directory inside the data directory. */
export const BUS_DIR = 'bus';
/** The dead letters' file inside the bus directory. */
export const DEAD_LETTERS_FILE = 'dead-letters.jsonl';

export function accountingConfigFor(options: RuntimeOptions, sandbox: Sandbox | undefined): AccountingConfig {
  const fromEnv = accountingInputFromEnv(options.env);
  if (sandbox) {
    // The sandbox's own demo key; credentials in the environment are for the real service.
    return parseAccountingConfig(
      {
        ...fromEnv,
        baseUrl: sandbox.baseUrl,
        authUrl: sandbox.authUrl,
        apiKey: sandbox.credentials.apiKey,
        clientId: undefined,
        clientSecret: undefined,
      },
      cliFieldName,
    );
  }
  return parseAccountingConfig(
    {
      ...fromEnv,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.authUrl ? { authUrl: options.authUrl } : {}),
    },
    cliFieldName,
  );
}
