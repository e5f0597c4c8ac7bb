/**
 * Every connection polled as its own loop: poll, then wait for its interval (or go on at once
 * while a backfill has work left), so a slow or failing connection delays no other. At most
 * `maxConcurrent` polls run at once, taken in turn. The connections are read again every
 * `refreshMs` (a registry file may change while the runtime runs): a new one starts its loop, a
 * paused or removed one stops at its next cycle — the poll in flight finishes, no other
 * connection's state is touched — and a resumed one starts again.
 */
import type { Clock } from '../core/ports.js';
import type { ConnectionPlan, ConnectionSource } from './connection-plans.js';
import type { ConnectionPoller } from './connection-poller.js';
import type { PollSummary } from './poll-summary.js';
import type { RuntimeUpdate } from './runtime-update.js';

/** A counting semaphore whose waiters are served in arrival order. */
export function createSlots(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return {
    async acquire(signal: AbortSignal): Promise<boolean> {
      if (signal.aborted) return false;
      if (free > 0) {
        free -= 1;
        return true;
      }
      return new Promise<boolean>((resolve) => {
        const turn = () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        };
        const onAbort = () => {
          waiting.splice(waiting.indexOf(turn), 1);
          resolve(false);
        };
        waiting.push(turn);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    },
  };
}

export interface LoopsDeps {
  source: ConnectionSource;
  /** The poller of a connection (made once per name, kept while the runtime runs). */
  pollerFor(plan: ConnectionPlan): Promise<ConnectionPoller>;
  clock: Clock;
  emit: (update: RuntimeUpdate) => void;
  maxConcurrent: number;
  refreshMs: number;
}

interface Loop {
  stop: AbortController;
  done: Promise<void>;
}

/** One connection's loop until `stop` aborts; a poll that throws is reported and the loop goes on. */
async function connectionLoop(
  poller: ConnectionPoller,
  deps: LoopsDeps,
  slots: ReturnType<typeof createSlots>,
  stop: AbortSignal,
) {
  while (!stop.aborted) {
    const cycleStart = deps.clock.now().getTime();
    if (!(await slots.acquire(stop))) break;
    let summary: PollSummary | undefined;
    try {
      summary = await poller.poll();
    } catch (error) {
      deps.emit({
        kind: 'warning',
        message: `poll of ${poller.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    } finally {
      slots.release();
    }
    if (stop.aborted) break;
    if (summary?.more) continue;
    const wait = Math.max(0, cycleStart + poller.plan().intervalMs - deps.clock.now().getTime());
    await deps.clock.sleep(wait, stop).catch(() => {});
  }
}

/** Runs the loops until `signal` aborts; resolves once every loop has finished its poll in flight. */
export async function runConnectionLoops(deps: LoopsDeps, signal: AbortSignal): Promise<void> {
  const slots = createSlots(deps.maxConcurrent);
  const loops = new Map<string, Loop>();
  const stopped: Promise<void>[] = [];
  /** The last state announced of each connection that is not polled (paused, removed). */
  const idle = new Map<string, 'paused' | 'removed'>();
  const announce = (connection: string, state: 'paused' | 'removed') => {
    if (idle.get(connection) === state) return;
    idle.set(connection, state);
    deps.emit({ kind: 'connection', connection, state });
  };
  const start = async (plan: ConnectionPlan) => {
    try {
      const poller = await deps.pollerFor(plan);
      poller.update(plan);
      if (loops.has(plan.name) || signal.aborted) return;
      idle.delete(plan.name);
      const stop = new AbortController();
      loops.set(plan.name, { stop, done: connectionLoop(poller, deps, slots, stop.signal) });
    } catch (error) {
      // Its actions' settings, say: that connection waits for a better entry, the others go on.
      deps.emit({
        kind: 'warning',
        message: `connection ${plan.name}: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  };
  const sync = async () => {
    let plans: ConnectionPlan[];
    try {
      plans = await deps.source.list();
    } catch (error) {
      // A file being edited or refused: the connections go on as they were.
      deps.emit({ kind: 'warning', message: error instanceof Error ? error.message : String(error) });
      return;
    }
    const byName = new Map(plans.map((p) => [p.name, p]));
    for (const [name, loop] of loops) {
      if (byName.has(name) && !byName.get(name)?.paused) continue;
      loop.stop.abort(); // stops at its next cycle; the poll in flight finishes
      stopped.push(loop.done);
      loops.delete(name);
      if (!byName.has(name)) announce(name, 'removed');
    }
    for (const name of idle.keys()) if (!byName.has(name)) announce(name, 'removed');
    for (const plan of plans) {
      if (plan.paused) announce(plan.name, 'paused');
      else await start(plan);
    }
  };
  // One listener ends every loop (not one per loop: a thousand would be a leak warning).
  signal.addEventListener(
    'abort',
    () => {
      for (const loop of loops.values()) loop.stop.abort();
    },
    { once: true },
  );
  while (!signal.aborted) {
    await sync();
    await deps.clock.sleep(deps.refreshMs, signal).catch(() => {});
  }
  await Promise.all([...stopped, ...[...loops.values()].map((l) => l.done)]);
}
