/**
 * The delivery function's settings (`DELIVERY_*`, set by infra): its targets, each fed by its own
 * queue — so a queue message's source ARN says which target it is for — with its own dead-letter
 * queue and signing secret, and how many attempts an event gets. Every bad variable is named in
 * one `ConfigError`.
 */
import * as z from 'zod';
import { ConfigError, type Env, issuesOf } from '#functions/shared/config.js';
import { DELIVERY_ENV } from '#functions/shared/delivery-env-names.js';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from './delivery-targets.js';

const arn = (service: string) =>
  z.string().regex(new RegExp(`^arn:[a-z-]+:${service}:`), `expected an ARN of ${service}`);

export const deliveryFunctionTargetSchema = z.strictObject({
  id: z.string().min(1, 'expected the target id'),
  url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }),
  queueArn: arn('sqs'),
  queueUrl: z.url({ error: 'expected the queue URL' }),
  deadLetterQueueUrl: z.url({ error: 'expected the dead-letter queue URL' }),
  secretArn: arn('secretsmanager'),
});

export type DeliveryFunctionTarget = z.infer<typeof deliveryFunctionTargetSchema>;

export interface DeliveryFunctionConfig {
  /** Targets by the ARN of the queue that feeds them. */
  readonly targets: ReadonlyMap<string, DeliveryFunctionTarget>;
  /** Targets may be on private and loopback addresses (never link-local or metadata ones). */
  readonly privateTargets: boolean;
  readonly policy: Pick<DeliveryPolicy, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'timeoutMs'>;
}

/** On AWS a retry waits a minute, doubling up to an hour (the queue's visibility, not a sleep). */
export const AWS_DELIVERY_BACKOFF = { baseDelayMs: 60_000, maxDelayMs: 3_600_000 } as const;

const targetsJson = z
  .string({ error: 'expected a JSON array of targets' })
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON array of targets' });
      return z.NEVER;
    }
  })
  .pipe(z.array(deliveryFunctionTargetSchema).min(1, 'expected at least one target'));

const schema = z.object({
  [DELIVERY_ENV.targets]: targetsJson,
  [DELIVERY_ENV.maxAttempts]: z.coerce
    .number({ error: 'expected a whole number of attempts from 1 to 186' })
    .int('expected a whole number of attempts from 1 to 186')
    .min(1, 'expected a whole number of attempts from 1 to 186')
    .max(186, 'expected a whole number of attempts from 1 to 186')
    .default(DEFAULT_DELIVERY_POLICY.maxAttempts),
  [DELIVERY_ENV.privateTargets]: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .default('false')
    .transform((v) => v === 'true'),
});

/** The variables parsed; `ConfigError` names each bad one (a target by its index and field). */
export function loadDeliveryFunctionConfig(env: Env): DeliveryFunctionConfig {
  const parsed = schema.safeParse({
    [DELIVERY_ENV.targets]: env[DELIVERY_ENV.targets]?.trim() || undefined,
    [DELIVERY_ENV.maxAttempts]: env[DELIVERY_ENV.maxAttempts]?.trim() || undefined,
    [DELIVERY_ENV.privateTargets]: env[DELIVERY_ENV.privateTargets]?.trim() || undefined,
  });
  if (!parsed.success) {
    throw new ConfigError(
      issuesOf(parsed.error, (path) => path.map(String).join('.') || '(config)'),
      { cause: parsed.error },
    );
  }
  const targets = parsed.data[DELIVERY_ENV.targets];
  return {
    targets: new Map(targets.map((t) => [t.queueArn, t])),
    privateTargets: parsed.data[DELIVERY_ENV.privateTargets],
    policy: {
      maxAttempts: parsed.data[DELIVERY_ENV.maxAttempts],
      timeoutMs: DEFAULT_DELIVERY_POLICY.timeoutMs,
      ...AWS_DELIVERY_BACKOFF,
    },
  };
}
