/**
 * A connection's health as one small state machine: `healthy` ↔ `unhealthy`. Each poll (or action)
 * of a connection reports how it went; the first failure of the connection as a whole publishes
 * `Connection.Unhealthy`, the first success after that `Connection.Recovered`, and nothing else
 * publishes. The state is stored with the checkpoints (key `<connection>#@health`, versioned
 * conditional writes), so two invocations racing on a change publish it once; the event's
 * idempotency key makes a redelivery harmless too.
 */
import * as z from 'zod';
import {
  AuthenticationError,
  ConnectionError,
  ForbiddenError,
  TimeoutError,
  UnauthorizedError,
} from '#functions/accounting/errors.js';
import { CheckpointConflictError } from '../errors.js';
import { ENVELOPE_VERSION } from '../events/catalog-entry.js';
import {
  CONNECTION_RECOVERED,
  CONNECTION_UNHEALTHY,
  type ConnectionRecoveredDetail,
  type ConnectionUnhealthyDetail,
  connectionHealthKey,
  type UnhealthyReason,
  unhealthyReasons,
} from '../events/connection-events.js';
import type { BusEvent, CheckpointStore, Clock, EventPublisher, Logger } from '../ports.js';

const healthStateSchema = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('healthy'),
    since: z.string(),
    announced: z.boolean(),
    unhealthySince: z.string().optional(),
  }),
  z.object({
    state: z.literal('unhealthy'),
    since: z.string(),
    announced: z.boolean(),
    reason: z.enum(unhealthyReasons),
    error: z.object({ name: z.string(), status: z.number().int().optional() }),
  }),
]);
export type HealthState = z.infer<typeof healthStateSchema>;

export type HealthReport =
  | { ok: true }
  | { ok: false; reason: UnhealthyReason; error: { name: string; status?: number } };

export interface HealthDeps {
  checkpoints: CheckpointStore<unknown>;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  /** The event source of this connection (`accounting.<connection>`, or the configured one). */
  source: string;
  /**
   * The announced states this process last read or wrote, by connection (a poller that owns its
   * connections): a report that changes nothing of an announced state then reads nothing.
   */
  known?: Map<string, HealthState>;
}

export function healthKey(connection: string): string {
  return `${connection}#@health`;
}

/**
 * Failures that concern the connection as a whole, not one record: refused credentials and a
 * service that does not answer. `undefined` for anything else (a 422, a bad record…).
 */
export function classifyConnectionFailure(error: unknown): HealthReport | undefined {
  const status = (error as { status?: unknown }).status;
  const detail = {
    name: error instanceof Error ? error.name : 'Error',
    ...(typeof status === 'number' ? { status } : {}),
  };
  // A 403 counts only when every collection answered it (see `healthOf`): the credentials may not read.
  if (
    error instanceof AuthenticationError ||
    error instanceof UnauthorizedError ||
    error instanceof ForbiddenError
  ) {
    return { ok: false, reason: 'authentication', error: detail };
  }
  if (error instanceof ConnectionError || error instanceof TimeoutError) {
    return { ok: false, reason: 'unreachable', error: detail };
  }
  return undefined;
}

/**
 * Records how the connection fared; publishes a health event only when the state changes. The new
 * state is stored first, unannounced; after the event is published it is marked announced. A crash
 * or failed publish in between leaves it unannounced, and the next report publishes it again with
 * the same `since` and so the same idempotency key: at least once, never a different event.
 */
export async function recordHealth(
  deps: HealthDeps,
  connection: string,
  report: HealthReport,
): Promise<void> {
  const key = healthKey(connection);
  const known = deps.known?.get(connection);
  if (known?.announced && report.ok === (known.state === 'healthy')) return;
  const stored = await deps.checkpoints.get(key);
  const parsed = stored ? healthStateSchema.safeParse(stored.value) : undefined;
  const previous: HealthState = parsed?.success
    ? parsed.data
    : { state: 'healthy', since: '', announced: true };
  let version = stored?.version;
  let current = previous;
  if (report.ok !== (previous.state === 'healthy')) {
    const since = deps.clock.now().toISOString();
    current = report.ok
      ? { state: 'healthy', since, announced: false, unhealthySince: previous.since }
      : { state: 'unhealthy', since, announced: false, reason: report.reason, error: report.error };
    version = await putUnlessRaced(deps, key, current, version);
    if (version === undefined) return;
  }
  if (current.announced) {
    deps.known?.set(connection, current);
    return;
  }
  await deps.publisher.publish([
    healthEvent(deps.source, connection, current, deps.clock.now().toISOString()),
  ]);
  const announced = await putUnlessRaced(deps, key, { ...current, announced: true }, version);
  if (announced !== undefined) deps.known?.set(connection, { ...current, announced: true });
  deps.logger.warn('connection health changed', {
    connection,
    state: current.state,
    ...(current.state === 'unhealthy' ? { reason: current.reason, error: current.error.name } : {}),
  });
}

/** The new version, or `undefined` when another invocation wrote first (it carries on from there). */
async function putUnlessRaced(
  deps: HealthDeps,
  key: string,
  value: HealthState,
  expectedVersion: number | undefined,
): Promise<number | undefined> {
  try {
    return await deps.checkpoints.put(key, value, expectedVersion);
  } catch (error) {
    if (error instanceof CheckpointConflictError) return undefined;
    throw error;
  }
}

function healthEvent(source: string, connection: string, state: HealthState, now: string): BusEvent {
  const change = state.state === 'healthy' ? 'Recovered' : 'Unhealthy';
  const base = {
    version: ENVELOPE_VERSION,
    connection,
    recordType: 'Connection' as const,
    id: connection,
    since: state.since,
    idempotencyKey: connectionHealthKey(connection, change, state.since),
    occurredAt: now,
  };
  const detail: ConnectionUnhealthyDetail | ConnectionRecoveredDetail =
    state.state === 'unhealthy'
      ? { ...base, change: 'Unhealthy', reason: state.reason, error: state.error }
      : { ...base, change: 'Recovered', unhealthySince: state.unhealthySince ?? state.since };
  return {
    source,
    detailType: state.state === 'healthy' ? CONNECTION_RECOVERED : CONNECTION_UNHEALTHY,
    detail,
  };
}
