/**
 * What one entry of the action registry (`registry.ts`) states, and the ports its dependencies
 * are built from. Infra reads `name`, `uses`, `outcomes` and the routes or schedules; the Lambda
 * handlers and the local runtime build the ports their way and call `deps` then `run`.
 *
 * `deps` receives one connection's context (its client, its bus, the settings) plus the stores
 * the entry `uses`, and nothing else: the same entry builds its dependencies for any connection.
 */
import * as z from 'zod';
import type { AccountingApi } from '#functions/accounting/api.js';
import { ACTION_FAILED, type ActionFailedType } from '../events/action-events.js';
import type { CatalogEntry } from '../events/catalog-entry.js';
import type { CheckpointStore, Clock, EventPublisher, Logger, ObjectStore } from '../ports.js';
import type { RouteSpec, ScheduleSpec } from '../route-spec.js';
import type { ActionSettings } from './action-settings.js';
import type { ActionsConfig } from './config.js';
import type { OpenSendings } from './open-sendings.js';
import type { IdempotencyGuard, IsdocSchema } from './ports.js';
import type { ActionFn } from './run-action.js';

/** What an action may keep state in, beyond the service and the bus; each is granted by infra. */
export interface ActionStores {
  /** Idempotency records (the idempotency table). */
  readonly idempotency: IdempotencyGuard;
  /** Open e-invoice sendings (the action state table). */
  readonly actionState: CheckpointStore<OpenSendings>;
  /** The ISDOC archive (the archive bucket, under `isdoc/`). */
  readonly archive: ObjectStore;
  /**
   * The records of finished e-invoice sendings beside the archived ISDOCs (the archive bucket,
   * write only, keys `isdoc/…*.einvoice.json`).
   */
  readonly sendingRecords: ObjectStore;
  /** The daily reports (the archive bucket, write only, under `reports/einvoicing/`). */
  readonly reports: ObjectStore;
}

export type ActionResource = keyof ActionStores;
export const actionResources = [
  'idempotency',
  'actionState',
  'archive',
  'sendingRecords',
  'reports',
] as const satisfies ActionResource[];

/**
 * Capabilities only some functions load, given by their handler (so no other bundle carries
 * them): the ISDOC schema check (libxml2 as WebAssembly) of the archive function.
 */
export interface ActionCapabilities {
  readonly isdocSchema?: IsdocSchema;
}

/** One connection's context: every action may use the service, the bus, the clock, the logger and the settings. */
export interface ActionContext extends ActionCapabilities {
  readonly config: ActionsConfig;
  readonly api: AccountingApi;
  readonly publisher: EventPublisher;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The context plus the stores an entry declares in `uses`. */
export type ActionPorts<R extends ActionResource> = ActionContext & Pick<ActionStores, R>;

/**
 * The ports of an action: the context, and the stores read on first use, so only the stores its
 * dependencies touch are built.
 */
export function actionPorts(context: ActionContext, stores: ActionStores): ActionPorts<ActionResource> {
  return {
    ...context,
    get idempotency() {
      return stores.idempotency;
    },
    get actionState() {
      return stores.actionState;
    },
    get archive() {
      return stores.archive;
    },
    get sendingRecords() {
      return stores.sendingRecords;
    },
    get reports() {
      return stores.reports;
    },
  };
}

/** What most actions take from the context as it is. */
export function actionContextDeps({ api, publisher, clock, logger, config }: ActionContext) {
  return { api, publisher, clock, logger, config };
}

/** A route's `source`: only events of this deployment's poller, so a rule never matches a foreign source. */
export function eventSourceOf(config: Pick<ActionsConfig, 'eventSource'>): string[] {
  return [config.eventSource];
}

interface ActionBase<R extends ActionResource, D, O extends string> {
  /** Kebab-case: the function's name and service name, the routes' `handler`. */
  readonly name: string;
  /**
   * The module that defines the entry (its `import.meta.url`): the generated Lambda entry of the
   * action imports the definition from there (`infra/constructs/handler-entry.ts`).
   */
  readonly module: string;
  /** What only this action's function loads (`handlers/capabilities/<capability>.ts`). */
  readonly capabilities?: readonly (keyof ActionCapabilities)[];
  /** Stores the action keeps state in; infra grants exactly these (plus the secret and the bus). */
  readonly uses: readonly R[];
  /**
   * Its own settings (`<name>/settings.ts`): the `ACTIONS_*` variables it reads and its section of
   * `ActionsConfig`. Two functions of one action name the same settings.
   */
  readonly settings?: ActionSettings;
  /**
   * The outcome detail-types it owns, with their schemas, declared beside its code: the catalog
   * takes them from here (`core/event-catalog.ts`), so no other module names them.
   */
  readonly events: readonly CatalogEntry<O>[];
  /** Every detail-type it may publish (its own `events` and `Action.Failed`); its role may put no other. */
  readonly outcomes: readonly (O | ActionFailedType)[];
  /** Its dependencies, from one connection's ports (method syntax: the registry holds entries of any `D`). */
  deps(ports: ActionPorts<R>): D;
}

/** An action run per event: one or more routes (rule → queue → function) deliver to it. */
export interface EventActionDefinition<
  R extends ActionResource = ActionResource,
  D = unknown,
  O extends string = string,
> extends ActionBase<R, D, O> {
  readonly kind: 'event';
  /**
   * The catalog entries of the events beyond the poller's that its routes name (the intake's,
   * another action's outcomes): its entry checks them against these, so its bundle carries no
   * other part of the catalog. `routes.ts` refuses a route naming an event outside the catalog or
   * outside these, and a loop (an action triggered, directly or through others, by its own outcome).
   */
  readonly triggers?: readonly CatalogEntry[];
  /** Its routes for the given settings (none when switched off). */
  routes(config: ActionsConfig): RouteSpec[];
  run(deps: D): ActionFn;
}

/** An action run on a schedule (the e-invoice status tracker); one pass per run, resolving to `T`. */
export interface ScheduledActionDefinition<
  R extends ActionResource = ActionResource,
  D = unknown,
  T = unknown,
  O extends string = string,
> extends ActionBase<R, D, O> {
  readonly kind: 'scheduled';
  /** Its schedules for the given settings (none when switched off). */
  schedules(config: ActionsConfig): ScheduleSpec[];
  run(deps: D): () => Promise<T>;
}

export type ActionDefinition = EventActionDefinition | ScheduledActionDefinition;

export function defineEventAction<R extends ActionResource, D, O extends string>(
  definition: Omit<EventActionDefinition<R, D, O>, 'kind'>,
): EventActionDefinition<R, D, O> {
  return { kind: 'event', ...definition };
}

export function defineScheduledAction<R extends ActionResource, D, T, O extends string>(
  definition: Omit<ScheduledActionDefinition<R, D, T, O>, 'kind'>,
): ScheduledActionDefinition<R, D, T, O> {
  return { kind: 'scheduled', ...definition };
}

const entrySchema = z.object({
  kind: z.enum(['event', 'scheduled']),
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, { error: 'expected a kebab-case handler module name' }),
  module: z.string().min(1, { error: "expected the defining module's import.meta.url" }),
  uses: z.array(z.enum(actionResources)),
  events: z.array(z.object({ detailType: z.string().regex(/^[A-Z][A-Za-z]*\.[A-Z][A-Za-z]*$/) })),
  outcomes: z.array(z.string().min(1)).min(1),
});

/** Thrown when the registry is malformed; names every entry and field at fault. */
export class ActionRegistryError extends Error {
  override readonly name = 'ActionRegistryError';
  constructor(
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`invalid action registry: ${problems.join('; ')}`, options);
  }
}

/**
 * Checks every entry: names unique and kebab-case, known stores, no detail-type declared by two
 * actions, no settings section or variable claimed by two actions' settings, and each outcome `Action.Failed` or an event some entry declares (two functions of one
 * action — the reminder and its scheduled pass, say — publish what one of them declares).
 */
export function validateRegistry<T extends readonly ActionDefinition[]>(entries: T): T {
  const problems: string[] = [];
  const seen = new Set<string>();
  const owners = new Map<string, string>();
  const declared = new Set(entries.flatMap((entry) => (entry.events ?? []).map((e) => e.detailType)));
  const sections = new Map<string, { settings: unknown; owner: string }>();
  const settingOwners = new Map<string, { settings: unknown; owner: string }>();
  for (const [i, entry] of entries.entries()) {
    const own = new Set<string>((entry.events ?? []).map((e) => e.detailType));
    for (const outcome of entry.outcomes ?? []) {
      if (outcome !== ACTION_FAILED && !declared.has(outcome)) {
        problems.push(`${entry.name}.outcomes: '${outcome}' is no event an action declares`);
      }
    }
    for (const detailType of own) {
      const owner = owners.get(detailType);
      if (owner !== undefined && owner !== entry.name) {
        problems.push(`${entry.name}.events: '${detailType}' is declared by ${owner} too`);
      }
      owners.set(detailType, entry.name);
    }
    const parsed = entrySchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push(`${entry.name ?? `#${i}`}.${issue.path.join('.')}: ${issue.message}`);
      }
    }
    if (entry.settings) {
      const { settings } = entry;
      const section = sections.get(settings.section);
      if (section && section.settings !== settings) {
        problems.push(`${entry.name}.settings: section '${settings.section}' is ${section.owner}'s`);
      }
      sections.set(settings.section, section ?? { settings, owner: entry.name });
      for (const name of settings.names) {
        const owner = settingOwners.get(name);
        if (owner && owner.settings !== settings) {
          problems.push(`${entry.name}.settings: '${name}' is a setting of ${owner.owner} too`);
        }
        settingOwners.set(name, owner ?? { settings, owner: entry.name });
      }
    }
    if (seen.has(entry.name)) problems.push(`${entry.name}: the name appears twice`);
    seen.add(entry.name);
  }
  if (problems.length > 0) throw new ActionRegistryError(problems);
  return entries;
}
