/** How far back an event can return (replay or redrive), and how long idempotency records last for it. */
const DAY_SECONDS = 86_400;

/** An archive retention of 0 keeps events forever: idempotency records then last 100 years. */
const FOREVER_DAYS = 36_500;

/** The deployment's settings the replay horizon follows from. */
export interface ReplaySettings {
  readonly eventArchiveRetentionDays: number;
  readonly deadLetterRetentionDays: number;
  readonly redriveWindowDays: number;
}

/**
 * The longest time after an effect that its event can come back: a replay from the bus archive,
 * or a redrive from a dead-letter queue (kept `deadLetterRetentionDays`) whose message then waits
 * up to `redriveWindowDays` in the action queue.
 */
export function replayHorizonDays(config: ReplaySettings): number {
  const archive = config.eventArchiveRetentionDays === 0 ? FOREVER_DAYS : config.eventArchiveRetentionDays;
  return Math.max(archive, config.deadLetterRetentionDays + config.redriveWindowDays);
}

/**
 * How long an idempotency record lasts: the replay horizon plus one day (EventBridge's own retries
 * of a rule target last up to 24 h), so no replay or redrive repeats an effect.
 */
export function idempotencyExpirySeconds(config: ReplaySettings): number {
  return (replayHorizonDays(config) + 1) * DAY_SECONDS;
}
