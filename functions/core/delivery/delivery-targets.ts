/**
 * Delivery of events to the user's own HTTP consumers (n8n, Make, Zapier, a service of one's own):
 * a list of targets, each a URL and an event pattern. Locally `run --deliver-to URL[,PATTERN]`;
 * on AWS the same list (infra config `deliveries`) becomes EventBridge API destinations.
 *
 * PATTERN names detail-types: `IssuedInvoice.Created`, a prefix `IssuedInvoice.*`, or `*` (every
 * event, the default); several joined by `|`. It becomes an EventBridge pattern on `detail-type`,
 * so a target matches the same events locally and on AWS. Each name is checked against the event
 * catalog, and each prefix must match one of its detail-types: a mistyped pattern is refused, not
 * a target that silently receives nothing.
 */
import * as z from 'zod';
import { matchesLeaf, type PatternValue } from '../event-pattern.js';
import { detailTypeSchema, detailTypes } from '../events/catalog.js';

export interface DeliveryTarget {
  /** Stable id: `delivery-<n>` in the order given, or the name the configuration gives. */
  readonly id: string;
  readonly url: string;
  /**
   * The URL as printed (start line, failures, dead letters): scheme and host only, its path and
   * query — often the capability (a webhook's secret path or token) — shown as `/…`.
   */
  readonly label: string;
  /** The detail-type pattern as written (`*` for every event). */
  readonly patternText: string;
  /** Alternatives on `detail-type` (EventBridge content filtering); absent = every event. */
  readonly detailTypes?: PatternValue[];
}

/** Whether a target takes events of `detailType`. */
export function targetMatches(target: DeliveryTarget, detailType: string): boolean {
  return target.detailTypes === undefined || matchesLeaf(target.detailTypes, detailType);
}

/** Retries and the dead-letter limit of every target (EventBridge's retry policy on AWS). */
export interface DeliveryPolicy {
  /** Attempts before an event is dead-lettered (the first one included). */
  maxAttempts: number;
  /** Backoff before the second attempt; doubled for each next one, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Deadline of one POST. */
  timeoutMs: number;
  /** Deliveries running at once per target. */
  concurrency: number;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  timeoutMs: 10_000,
  concurrency: 4,
};

export class DeliveryTargetError extends Error {
  override readonly name = 'DeliveryTargetError';
}

const DETAIL_TYPE = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)?(\.?\*)?$/;

/** `A.B|C.*` → alternatives on `detail-type` (exact names and prefixes); `*` → undefined (every event). */
export function detailTypePattern(text: string): PatternValue[] | undefined {
  const parts = text
    .split('|')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0 || parts.includes('*')) return undefined;
  const alternatives = parts.map((part) => {
    if (!DETAIL_TYPE.test(part)) {
      throw new DeliveryTargetError(
        `"${part}" is not a detail-type pattern (expected e.g. IssuedInvoice.Created, IssuedInvoice.* or *)`,
      );
    }
    if (part.endsWith('*')) {
      const prefix = part.slice(0, -1);
      if (!detailTypes.some((t) => t.startsWith(prefix))) {
        throw new DeliveryTargetError(`"${part}" matches no detail-type of the event catalog`);
      }
      return { prefix };
    }
    const name = detailTypeSchema.safeParse(part);
    if (!name.success) throw new DeliveryTargetError(name.error.issues[0]?.message ?? `"${part}"`);
    return name.data;
  });
  return alternatives;
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });

/** A URL as it may be printed: scheme and host, the path and query (a capability) as `/…`. */
export function redactUrl(text: string): string {
  try {
    const u = new URL(text);
    const hidden = (u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.hash !== '';
    return `${u.protocol}//${u.host}${hidden ? '/…' : ''}`;
  } catch {
    return '(not a URL)';
  }
}

/** `localhost`, 127.0.0.0/8 or ::1. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Link-local and cloud metadata addresses, which a delivery must never reach: IPv4 169.254.0.0/16
 * (the EC2, ECS and GCP metadata services among them), IPv6 fe80::/10, the EC2 IPv6 metadata
 * address fd00:ec2::254, the unspecified addresses, and the metadata names of the clouds.
 */
function isForbiddenHost(host: string): boolean {
  if (/^169\.254(\.\d{1,3}){2}$/.test(host)) return true;
  if (host === '0.0.0.0' || host === '::' || /^0(\.\d{1,3}){3}$/.test(host)) return true;
  if (/^fe[89ab][0-9a-f]?:/.test(host)) return true;
  if (/^fd00:ec2:(0*:)*:?0*254$/.test(host) || host === 'fd00:ec2::254') return true;
  if (/^::ffff:169\.254\./.test(host) || /^::ffff:a9fe:/.test(host)) return true;
  return ['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal'].includes(
    host.replace(/\.$/, ''),
  );
}

/** One target from `URL[,PATTERN]`. The URL must not carry a user or password (it is printed). */
export function parseTargetSpec(spec: string, index: number): DeliveryTarget {
  const comma = spec.indexOf(',');
  const url = (comma < 0 ? spec : spec.slice(0, comma)).trim();
  const patternText = (comma < 0 ? '*' : spec.slice(comma + 1).trim()) || '*';
  const parsed = httpUrl.safeParse(url);
  if (!parsed.success) {
    throw new DeliveryTargetError(`"${redactUrl(url)}": expected an http:// or https:// URL`);
  }
  const u = new URL(url);
  const label = redactUrl(url);
  if (u.username || u.password) {
    throw new DeliveryTargetError(
      `"${u.host}": a user or password in the URL would be printed; leave it out`,
    );
  }
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isForbiddenHost(host)) {
    throw new DeliveryTargetError(`"${label}": a link-local or metadata address is never a delivery target`);
  }
  if (u.protocol === 'http:' && !isLoopback(host)) {
    throw new DeliveryTargetError(`"${label}": expected https:// (plain http:// only on a loopback host)`);
  }
  const detailTypes = detailTypePattern(patternText);
  return {
    id: `delivery-${index + 1}`,
    url,
    label,
    patternText,
    ...(detailTypes ? { detailTypes } : {}),
  };
}

/** Every target of a list; one error naming every bad one. */
export function parseTargetSpecs(specs: readonly string[]): DeliveryTarget[] {
  const problems: string[] = [];
  const targets: DeliveryTarget[] = [];
  specs.forEach((spec, i) => {
    try {
      targets.push(parseTargetSpec(spec, i));
    } catch (error) {
      if (!(error instanceof DeliveryTargetError)) throw error;
      problems.push(error.message);
    }
  });
  if (problems.length > 0) throw new DeliveryTargetError(problems.join('; '));
  return targets;
}

/** Backoff before attempt `attempt` (2, 3, …): base × 2^(attempt−2), capped. */
export function backoffMs(policy: DeliveryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 2));
}

/** Whether a response status is worth another attempt (as EventBridge API destinations do: 429, 5xx, timeouts). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
