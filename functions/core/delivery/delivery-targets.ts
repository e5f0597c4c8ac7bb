/**
 * Delivery of events to the user's own HTTP consumers (n8n, Make, Zapier, a service of one's own):
 * a list of targets, each a URL, an event pattern and optionally the connections whose events it
 * takes. Locally `run --deliver-to URL[,PATTERN]`; on AWS the same list (infra config `deliveries`)
 * becomes one signed delivery queue per target (or EventBridge API destinations).
 *
 * PATTERN names detail-types: `IssuedInvoice.Created`, a prefix `IssuedInvoice.*`, or `*` (every
 * event, the default); several joined by `|`. It becomes an EventBridge pattern on `detail-type`,
 * so a target matches the same events locally and on AWS. Each name is checked against the event
 * catalog, and each prefix must match one of its detail-types: a mistyped pattern is refused, not
 * a target that silently receives nothing.
 */
import * as z from 'zod';
import { connectionSchema } from '../connection.js';
import { detailTypeSchema, detailTypes } from '../event-catalog.js';
import { matchesLeaf, type PatternValue } from '../event-pattern.js';
import { nonPublicAddressReason, parseIpv4, parseIpv6 } from './public-address.js';

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
  /** The connections whose events it takes (their `source`); absent = every connection's. */
  readonly connections?: readonly string[];
}

/** Whether a target takes events of `detailType`. */
export function targetMatches(target: DeliveryTarget, detailType: string): boolean {
  return target.detailTypes === undefined || matchesLeaf(target.detailTypes, detailType);
}

/** Retries and the dead-letter limit of every target (on AWS: delivery-function-config.ts, with a longer backoff). */
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

/** A target's name: its id in resource names and logs. */
const targetNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, 'expected lowercase letters, digits and dashes, starting with a letter');

/** A target as an object (the JSON form of `deliveries`): the only form that names connections. */
export const deliveryTargetObjectSchema = z.strictObject({
  url: z.string({ error: 'expected the consumer URL' }),
  /** Detail-type pattern as `--deliver-to` takes it; default every event. */
  pattern: z.string().optional(),
  /** Connections whose events the target takes; default every connection's. */
  connections: z.array(connectionSchema).min(1, 'expected at least one connection').optional(),
  /** Its id (default `delivery-<n>`). */
  name: targetNameSchema.optional(),
});

export type DeliveryTargetObject = z.infer<typeof deliveryTargetObjectSchema>;

/** One item of a target list: `URL[,PATTERN]`, or the object form. */
export type DeliveryTargetSpec = string | DeliveryTargetObject;

export interface TargetCheckOptions {
  /**
   * Refuse plain http:// to anything but the loopback (default true: the body crosses networks,
   * and the signature proves who sent it, not that nobody read it).
   */
  readonly requireHttps?: boolean;
  /**
   * Refuse every host that is not a public address: loopback (`localhost`, 127.0.0.0/8, ::1),
   * private, shared, ULA and the IPv6 forms that carry such an IPv4 address (default false: a
   * local run delivers to consumers on this machine and its network). A deployment's targets
   * take this; a name is checked again, resolved, when the delivery function connects.
   */
  readonly publicOnly?: boolean;
}

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

const LOOPBACK_NAMES = /^(localhost|[a-z0-9-]+\.localhost)$/;
/** Names of instance metadata services (AWS, GCP, Azure, Alibaba, Oracle answer on link-local addresses). */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

function ipv4(host: string): number[] | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d` or `::ffff:xxxx:xxxx`). */
function mappedIpv4(host: string): number[] | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted) return ipv4(dotted[1] as string);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!hex) return undefined;
  const [hi, lo] = [Number.parseInt(hex[1] as string, 16), Number.parseInt(hex[2] as string, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255];
}

/** Whether a URL's host is this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const v4 = ipv4(host) ?? mappedIpv4(host);
  if (v4) return v4[0] === 127;
  return host === '::1' || LOOPBACK_NAMES.test(host);
}

/**
 * Why a host may not be a delivery target, if it may not: link-local addresses (169.254.0.0/16,
 * fe80::/10) and the instance metadata services (which answer there, or at fd00:ec2::254 and
 * 100.100.100.200), and the unspecified address. A delivery there would hand the event — and with
 * it a signed request — to the machine's own credentials service.
 */
export function refusedHostReason(hostname: string): string | undefined {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const v4 = ipv4(host) ?? mappedIpv4(host);
  if (v4) {
    if (v4[0] === 169 && v4[1] === 254) return 'a link-local address (instance metadata)';
    if (v4.join('.') === '100.100.100.200') return 'an instance metadata address';
    if (v4.every((b) => b === 0)) return 'the unspecified address';
    return undefined;
  }
  if (host.includes(':')) {
    if (/^fe[89ab][0-9a-f]?:/.test(host)) return 'a link-local address';
    if (host === 'fd00:ec2::254') return 'an instance metadata address';
    if (host === '::') return 'the unspecified address';
    return undefined;
  }
  if (METADATA_NAMES.has(host)) return 'an instance metadata host';
  return undefined;
}

/** Why a URL's host is not public, when it is an IP literal or a loopback name. */
function nonPublicHostReason(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (LOOPBACK_NAMES.test(host)) return 'a loopback host';
  const literal = host.replace(/^\[|\]$/g, '');
  if (parseIpv4(literal) || parseIpv6(literal)) return nonPublicAddressReason(literal);
  return undefined;
}

/** Checks a target URL: http(s), no user or password, no link-local or metadata host, https when required. */
export function checkTargetUrl(url: string, options: TargetCheckOptions = {}): URL {
  const parsed = httpUrl.safeParse(url);
  if (!parsed.success) {
    throw new DeliveryTargetError(`"${redactUrl(url)}": expected an http:// or https:// URL`);
  }
  const u = new URL(url);
  if (u.username || u.password) {
    throw new DeliveryTargetError(
      `"${u.host}": a user or password in the URL would be printed; leave it out`,
    );
  }
  const refused =
    refusedHostReason(u.hostname) ?? (options.publicOnly ? nonPublicHostReason(u.hostname) : undefined);
  if (refused) throw new DeliveryTargetError(`"${u.host}": ${refused} cannot be a delivery target`);
  if ((options.requireHttps ?? true) && u.protocol !== 'https:' && !isLoopbackHost(u.hostname)) {
    throw new DeliveryTargetError(
      `"${redactUrl(url)}": expected https:// (plain http:// only on a loopback host)`,
    );
  }
  return u;
}

/** One target from `URL[,PATTERN]` or its object form. */
export function parseTargetSpec(
  spec: DeliveryTargetSpec,
  index: number,
  options: TargetCheckOptions = {},
): DeliveryTarget {
  if (typeof spec !== 'string') return parseTargetObject(spec, index, options);
  const comma = spec.indexOf(',');
  const url = (comma < 0 ? spec : spec.slice(0, comma)).trim();
  const patternText = (comma < 0 ? '*' : spec.slice(comma + 1).trim()) || '*';
  checkTargetUrl(url, options);
  const detailTypes = detailTypePattern(patternText);
  return {
    id: `delivery-${index + 1}`,
    url,
    label: redactUrl(url),
    patternText,
    ...(detailTypes ? { detailTypes } : {}),
  };
}

function parseTargetObject(spec: unknown, index: number, options: TargetCheckOptions): DeliveryTarget {
  const parsed = deliveryTargetObjectSchema.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new DeliveryTargetError(`target ${index + 1}: ${where}${issue?.message ?? 'invalid'}`);
  }
  const { url: rawUrl, pattern, connections, name } = parsed.data;
  const url = rawUrl.trim();
  checkTargetUrl(url, options);
  const patternText = pattern?.trim() || '*';
  const detailTypes = detailTypePattern(patternText);
  return {
    id: name ?? `delivery-${index + 1}`,
    url,
    label: redactUrl(url),
    patternText,
    ...(detailTypes ? { detailTypes } : {}),
    ...(connections ? { connections: [...new Set(connections)] } : {}),
  };
}

/** Every target of a list; one error naming every bad one (and any id given twice). */
export function parseTargetSpecs(
  specs: readonly DeliveryTargetSpec[],
  options: TargetCheckOptions = {},
): DeliveryTarget[] {
  const problems: string[] = [];
  const targets: DeliveryTarget[] = [];
  specs.forEach((spec, i) => {
    try {
      targets.push(parseTargetSpec(spec, i, options));
    } catch (error) {
      if (!(error instanceof DeliveryTargetError)) throw error;
      problems.push(error.message);
    }
  });
  const ids = targets.map((t) => t.id);
  const twice = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
  if (twice.length > 0) problems.push(`target name ${twice.join(', ')} given twice`);
  if (problems.length > 0) throw new DeliveryTargetError(problems.join('; '));
  return targets;
}

/** Backoff before attempt `attempt` (2, 3, …): base × 2^(attempt−2), capped. */
export function backoffMs(
  policy: Pick<DeliveryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  attempt: number,
): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 2));
}

/** Whether a response status is worth another attempt (as EventBridge API destinations do: 429, 5xx, timeouts). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * How a deployment's targets are checked: https:// to a public host; with `privateTargets` (the
 * infra setting `deliveryPrivateTargets`, warned about at synth) private and loopback hosts too.
 */
export function deployedTargetChecks(privateTargets = false): TargetCheckOptions {
  return { requireHttps: true, publicOnly: !privateTargets };
}

/** How a deployment's targets are checked by default: https:// to a public host. */
export const DEPLOYED_TARGET_CHECKS: TargetCheckOptions = deployedTargetChecks();
