/**
 * A dead letters' redrive, shared by `dlq redrive` (the runtime stopped: straight into the journal)
 * and the console (the runtime running: through its bus): the chosen letters are journaled again,
 * each for its own route only, then taken off the list. Journaled first (fsync'd), then removed: a
 * crash in between only repeats a redrive, which the actions' idempotency makes harmless.
 */
import type { DeadLetterStore } from '../adapters/local/dead-letter-store.js';
import type { DeadLetter, EventBridgeEvent } from '../adapters/local/local-bus.js';

export interface RedriveResult {
  count: number;
  /** The routes the letters went back to. */
  routes: string[];
}

/** The key that tells one dead letter from another (the same event may die at two routes, or twice). */
export function deadLetterKey(letter: DeadLetter): string {
  return `${letter.routeId}\n${letter.event.id}\n${letter.at.getTime()}`;
}

export async function redriveDeadLetters(
  store: DeadLetterStore,
  wanted: (letter: DeadLetter) => boolean,
  journalAgain: (routeId: string, events: readonly EventBridgeEvent[]) => Promise<void>,
): Promise<RedriveResult> {
  const letters = (await store.list()).filter(wanted);
  if (letters.length === 0) return { count: 0, routes: [] };
  const byRoute = new Map<string, DeadLetter[]>();
  for (const l of letters) byRoute.set(l.routeId, [...(byRoute.get(l.routeId) ?? []), l]);
  for (const [routeId, list] of byRoute)
    await journalAgain(
      routeId,
      list.map((l) => l.event),
    );
  const ids = new Set(letters.map(deadLetterKey));
  await store.retain((l) => !ids.has(deadLetterKey(l)));
  return { count: letters.length, routes: [...byRoute.keys()] };
}
