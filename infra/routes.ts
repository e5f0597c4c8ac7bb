/**
 * The routing table: which events trigger which action. The CDK stack turns each route into
 * an EventBridge rule → SQS queue → function; the local runtime's bus applies the same
 * patterns in process. Nothing else decides routing.
 *
 * Patterns use the subset of EventBridge content filtering that `matchesPattern`
 * (functions/core/event-pattern.ts) implements: exact values (arrays = any of), `prefix`,
 * `anything-but`, `exists`, nested objects for `detail`.
 */

export type PatternValue =
  | string
  | number
  | boolean
  | null
  | { prefix: string }
  | { 'anything-but': string | string[] }
  | { exists: boolean };

export interface EventPatternSpec {
  source?: string[];
  'detail-type': string[];
  detail?: { [key: string]: PatternValue[] | EventPatternSpec['detail'] };
}

export interface Route {
  /** Stable id: names the rule, queue and function. */
  readonly id: string;
  /** Handler module under `functions/handlers/` (without extension). */
  readonly handler: string;
  readonly description: string;
  readonly pattern: EventPatternSpec;
  /** Upper bound on concurrent invocations (keeps the service's rate limit). */
  readonly maxConcurrency: number;
  /** Deliveries before a message goes to the dead-letter queue. */
  readonly maxReceiveCount: number;
  /** Function timeout in seconds (the queue's visibility timeout derives from it). */
  readonly timeoutSeconds: number;
}
