/**
 * How EventBridge delivers to a rule's target and Scheduler to a schedule's: an attempt that
 * fails for a reason that may pass (the target throttled or unavailable) is tried again with
 * backoff within the target's `RetryPolicy` (`MaximumRetryAttempts`, default 185;
 * `MaximumEventAgeInSeconds`, default 86,400); one refused for good (permissions) is not. What
 * gives up goes to the target's `DeadLetterConfig` queue — sent by the service (a rule: its
 * principal, under the queue's policy, with the rule as `aws:SourceArn`; a schedule: its
 * execution role) — and, without one or when that send is refused, is lost: a finding naming the
 * resource and the property. The retries' spacing (doubling from 1 s, at most 5 min) is an
 * approximation: EventBridge documents backoff with jitter, not its figures.
 */
import type { Json, Resource } from './assembly.js';
import type { Authorizer, Context, Principal } from './iam.js';
import type { Queues } from './sqs-queues.js';
import type { Usage } from './usage.js';
import type { VirtualClock } from './virtual-clock.js';

export type Outcome = { ok: true } | { ok: false; retryable: boolean; error: string };

export interface Attempt {
  /** The rule or schedule. */
  readonly source: Resource;
  /** `Targets[0]` of a rule, `Target` of a schedule: for the usage key and the findings. */
  readonly path: string;
  readonly target: Json;
  readonly body: string;
  readonly firstAt: number;
  attempts: number;
  dueAt: number;
}

export interface RetryingDeliveryDeps {
  readonly authorizer: Authorizer;
  readonly queues: Queues;
  readonly clock: VirtualClock;
  readonly usage: Usage;
  /** Who sends to the dead-letter queue, and with which context. */
  readonly deadLetterSender: (a: Attempt) => { who: Principal; context: Context };
}

const MAX_BACKOFF_MS = 300_000;

export class RetryingDelivery {
  private readonly waiting: Attempt[] = [];

  constructor(
    private readonly deps: RetryingDeliveryDeps,
    private readonly attemptOnce: (a: Attempt) => Promise<Outcome>,
  ) {}

  /** Delivers now; a failure is retried later or dead-lettered. */
  async deliver(source: Resource, path: string, target: Json, body: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.run({ source, path, target, body, firstAt: now, attempts: 0, dueAt: now });
  }

  /** The earliest retry waiting, if any. */
  nextDueAt(): number | undefined {
    return this.waiting.length > 0 ? Math.min(...this.waiting.map((a) => a.dueAt)) : undefined;
  }

  /** Runs every retry that is due; whether any ran. */
  async runDue(): Promise<boolean> {
    const now = this.deps.clock.now();
    const due = this.waiting.filter((a) => a.dueAt <= now);
    for (const a of due) {
      this.waiting.splice(this.waiting.indexOf(a), 1);
      await this.run(a);
    }
    return due.length > 0;
  }

  private async run(a: Attempt): Promise<void> {
    a.attempts += 1;
    const outcome = await this.attemptOnce(a);
    if (outcome.ok) {
      const key = `${a.source.logicalId}#${a.path}`;
      this.deps.usage.targetDeliveries.set(key, (this.deps.usage.targetDeliveries.get(key) ?? 0) + 1);
      return;
    }
    const retry = a.target.RetryPolicy ?? {};
    const maxAttempts = 1 + Number(retry.MaximumRetryAttempts ?? 185);
    const maxAgeMs = 1000 * Number(retry.MaximumEventAgeInSeconds ?? 86_400);
    const backoff = Math.min(1000 * 2 ** (a.attempts - 1), MAX_BACKOFF_MS);
    const next = this.deps.clock.now() + backoff;
    if (outcome.retryable && a.attempts < maxAttempts && next - a.firstAt <= maxAgeMs) {
      a.dueAt = next;
      this.waiting.push(a);
      return;
    }
    await this.deadLetter(a, outcome.error);
  }

  private async deadLetter(a: Attempt, error: string): Promise<void> {
    const where = `${a.source.logicalId} ${a.path}`;
    const dlqArn = a.target.DeadLetterConfig?.Arn;
    const gaveUp = `${where}: delivery to ${a.target.Arn} failed after ${a.attempts} attempt(s) (${error})`;
    if (!dlqArn) {
      this.deps.usage.findings.push(`${gaveUp}, and the target has no DeadLetterConfig: the event is lost`);
      return;
    }
    const { who, context } = this.deps.deadLetterSender(a);
    const decision = await this.deps.authorizer.authorize(who, 'sqs:SendMessage', dlqArn, context);
    if (decision.decision !== 'Allowed') {
      this.deps.usage.findings.push(
        `${gaveUp}, and its DeadLetterConfig queue refused it (${decision.reason}): the event is lost`,
      );
      return;
    }
    this.deps.queues.send(this.deps.queues.get(dlqArn), a.body);
  }
}
