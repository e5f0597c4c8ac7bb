/**
 * The structured logger (implements the `Logger` port): one JSON object per line (Lambda, CloudWatch)
 * or a short human-readable line (`pretty`, for the local runtime).
 *
 * Redaction is by construction: keys that name a credential (api key, secret, token, authorization,
 * password, cookie) are replaced by `[redacted]` at any depth, and every registered secret value
 * (see `registerSecretValue`, called by the `Secret` wrapper) is replaced wherever it appears inside
 * any string — messages, nested data, error messages and stacks.
 */
/** Structured logger: constant messages, data in keys. Secrets are redacted by the implementation. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const satisfies readonly LogLevel[];
export type LogFormat = 'json' | 'pretty';

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export const REDACTED = '[redacted]';

/** Secret values shorter than this are not registered (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 6;
/** Bounded: token renewals add one value each; the oldest are forgotten first. */
const MAX_REGISTERED = 256;
const registered = new Set<string>();

/** Makes the logger (and `redactText`) replace `value` wherever it appears. */
export function registerSecretValue(value: string): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
  registered.delete(value);
  registered.add(value);
  if (registered.size > MAX_REGISTERED) {
    const oldest = registered.values().next().value;
    if (oldest !== undefined) registered.delete(oldest);
  }
}

/** Keys whose values are credentials: `apiKey`, `Api-Key`, `clientSecret`, `access_token`, `Authorization`… */
const SENSITIVE_SUFFIXES = [
  'apikey',
  'secret',
  'token',
  'authorization',
  'password',
  'passwd',
  'cookie',
  'credential',
  'credentials',
  'signature',
  'privatekey',
];

export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_\s.]/g, '');
  return SENSITIVE_SUFFIXES.some((s) => k.endsWith(s));
}

/** Characters of a name (`sandbox-1`, `shop_eu`): a secret is masked where it stands whole, not inside one. */
const NAME_CHAR = /[A-Za-z0-9_-]/;

/**
 * Each occurrence of `secret` in `text` that is not part of a longer name: `sandbox` is masked in
 * `key=sandbox&`, `"sandbox"` or `Bearer sandbox`, and left alone in the connection name `sandbox-1`.
 */
function maskWhole(text: string, secret: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
    if (at < from) continue;
    const before = text[at - 1];
    const after = text[at + secret.length];
    const insideName =
      (before !== undefined && NAME_CHAR.test(before) && NAME_CHAR.test(secret[0] ?? '')) ||
      (after !== undefined && NAME_CHAR.test(after) && NAME_CHAR.test(secret.at(-1) ?? ''));
    if (insideName) continue;
    out += `${text.slice(from, at)}${REDACTED}`;
    from = at + secret.length;
  }
  return from === 0 ? text : out + text.slice(from);
}

function replaceAll(text: string, values: Iterable<string>): string {
  let out = text;
  for (const v of values) {
    if (v.length >= MIN_SECRET_LENGTH && out.includes(v)) out = maskWhole(out, v);
  }
  return out;
}

/** Replaces every registered secret value (and `extra`) inside `text`. */
export function redactText(text: string, extra: Iterable<string> = []): string {
  return replaceAll(replaceAll(text, registered), extra);
}

/** A deep copy of `value` with sensitive keys and registered secret values replaced. */
export function redactValue(value: unknown, extra: readonly string[] = []): unknown {
  const seen = new WeakSet<object>();
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redactText(v, extra);
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'function' || typeof v === 'symbol') return String(v.toString());
      return v;
    }
    if (seen.has(v)) return '[circular]';
    if (depth > 8) return '[depth]';
    seen.add(v);
    if (v instanceof Date) return v.toISOString();
    if (v instanceof Error) {
      const out: Record<string, unknown> = {
        name: v.name,
        message: redactText(v.message, extra),
      };
      for (const [k, inner] of Object.entries(v)) {
        out[k] = isSensitiveKey(k) ? REDACTED : walk(inner, depth + 1);
      }
      if (v.stack) out.stack = redactText(v.stack, extra);
      if (v.cause !== undefined) out.cause = walk(v.cause, depth + 1);
      return out;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    // Objects that know how to present themselves safely (e.g. `Secret`) do so.
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function' && !(v.constructor === Object)) {
      return walk(toJSON.call(v), depth + 1);
    }
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) {
      out[k] = isSensitiveKey(k) && inner !== undefined && inner !== null ? REDACTED : walk(inner, depth + 1);
    }
    return out;
  };
  return walk(value, 0);
}

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where each formatted line goes (without the trailing newline). Default: stdout. */
  sink?: (line: string) => void;
  /** Extra secret values to redact besides the registered ones. */
  redact?: readonly string[];
  /** Service name put on each JSON line. */
  service?: string;
  /** Fields put on every line (e.g. `connection`). */
  context?: Record<string, unknown>;
  /** Time source for timestamps (tests pass a manual clock's `now`). */
  now?: () => Date;
}

export interface AppLogger extends Logger {
  /** A logger with more fixed fields. */
  child(context: Record<string, unknown>): AppLogger;
  /** Registers a secret value to redact (globally, as `registerSecretValue`). */
  addSecret(value: string): void;
  readonly level: LogLevel;
}

const defaultSink = (line: string) => {
  process.stdout.write(`${line}\n`);
};

export function createLogger(options: LoggerOptions = {}): AppLogger {
  const level = options.level ?? 'info';
  const format = options.format ?? 'json';
  const sink = options.sink ?? defaultSink;
  const extra = [...(options.redact ?? [])];
  const now = options.now ?? (() => new Date());
  const context = options.context ?? {};

  const write = (lvl: Exclude<LogLevel, 'silent'>, message: string, data?: Record<string, unknown>) => {
    if (levelRank[lvl] < levelRank[level]) return;
    const safeMessage = redactText(message, extra);
    const safeData = redactValue({ ...context, ...(data ?? {}) }, extra) as Record<string, unknown>;
    let line: string;
    if (format === 'json') {
      line = JSON.stringify({
        level: lvl.toUpperCase(),
        message: safeMessage,
        timestamp: now().toISOString(),
        ...(options.service ? { service: options.service } : {}),
        ...safeData,
      });
    } else {
      const keys = Object.keys(safeData);
      const rest = keys.length ? ` ${JSON.stringify(safeData)}` : '';
      line = `${now().toISOString().slice(11, 23)} ${lvl.toUpperCase().padEnd(5)} ${safeMessage}${rest}`;
    }
    // A value registered between formatting and here cannot slip through: redact the line once more.
    sink(redactText(line, extra));
  };

  return {
    level,
    debug: (m, d) => write('debug', m, d),
    info: (m, d) => write('info', m, d),
    warn: (m, d) => write('warn', m, d),
    error: (m, d) => write('error', m, d),
    addSecret: registerSecretValue,
    child: (more) => createLogger({ ...options, context: { ...context, ...more } }),
  };
}

/** A logger that drops everything (default of libraries when none is given). */
export const silentLogger: AppLogger = createLogger({ level: 'silent', sink: () => {} });
