/**
 * Schedule expressions as EventBridge Scheduler and EventBridge rules read them — `rate(n unit)`,
 * `cron(minutes hours day-of-month month day-of-week year)` and `at(yyyy-mm-ddThh:mm:ss)` — in UTC.
 * What is not implemented here (`L`, `W`, `#`, a time zone other than UTC) is refused with the
 * schedule named, never approximated.
 */
export class ScheduleExpressionError extends Error {
  override readonly name = 'ScheduleExpressionError';
}

export interface ScheduleTimes {
  /** The first occurrence strictly after `after` (ms), or undefined within five years. */
  nextAfter(after: number): number | undefined;
}

const MINUTE = 60_000;
const UNITS: Record<string, number> = { minute: MINUTE, hour: 60 * MINUTE, day: 24 * 60 * MINUTE };
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const UTC = new Set([undefined, '', 'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']);

function field(
  who: string,
  text: string,
  min: number,
  max: number,
  names: string[] = [],
  base = min,
): Set<number> | 'any' {
  if (text === '*' || text === '?') return 'any';
  const out = new Set<number>();
  const value = (v: string) => {
    const named = names.indexOf(v.toUpperCase());
    const n = named >= 0 ? named + base : Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ScheduleExpressionError(
        `${who}: ${v} is out of range ${min}-${max} (or not implemented: L, W, #)`,
      );
    return n;
  };
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/') as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1)
      throw new ScheduleExpressionError(`${who}: step ${stepText} is invalid`);
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [min, max];
    else if (range.includes('-')) {
      const [a, b] = range.split('-') as [string, string];
      [from, to] = [value(a), value(b)];
    } else {
      from = value(range);
      to = stepText === undefined ? from : max;
    }
    for (let n = from; n <= to; n += step) out.add(n);
  }
  return out;
}

const has = (set: Set<number> | 'any', n: number) => set === 'any' || set.has(n);

function cron(who: string, body: string): ScheduleTimes {
  const parts = body.trim().split(/\s+/);
  if (parts.length !== 6)
    throw new ScheduleExpressionError(`${who}: cron needs 6 fields, got ${parts.length}`);
  const [mi, h, dom, mon, dow, yr] = parts as [string, string, string, string, string, string];
  if ((dom === '?') === (dow === '?'))
    throw new ScheduleExpressionError(`${who}: exactly one of day-of-month and day-of-week must be ?`);
  const minutes = field(who, mi, 0, 59);
  const hours = field(who, h, 0, 23);
  const days = field(who, dom, 1, 31);
  const months = field(who, mon, 1, 12, MONTHS, 1);
  const weekdays = field(who, dow, 1, 7, DAYS, 1);
  const years = field(who, yr, 1970, 2199);
  return {
    nextAfter(after) {
      const start = Math.floor(after / MINUTE) * MINUTE + MINUTE;
      const firstDay = Date.UTC(
        new Date(start).getUTCFullYear(),
        new Date(start).getUTCMonth(),
        new Date(start).getUTCDate(),
      );
      for (let d = 0; d < 5 * 366; d++) {
        const day = new Date(firstDay + d * 24 * 60 * MINUTE);
        if (!has(years, day.getUTCFullYear()) || !has(months, day.getUTCMonth() + 1)) continue;
        if (!has(days, day.getUTCDate()) || !has(weekdays, day.getUTCDay() + 1)) continue;
        for (let hh = 0; hh < 24; hh++) {
          if (!has(hours, hh)) continue;
          for (let mm = 0; mm < 60; mm++) {
            const t = day.getTime() + (hh * 60 + mm) * MINUTE;
            if (t >= start && has(minutes, mm)) return t;
          }
        }
      }
      return undefined;
    },
  };
}

/**
 * The occurrences of a schedule. A rate counts from `createdAt` (the deployment), its first
 * occurrence then; a cron and an `at` are absolute (UTC).
 */
export function scheduleTimes(
  who: string,
  expression: string,
  createdAt: number,
  timezone?: string,
): ScheduleTimes {
  if (!UTC.has(timezone))
    throw new ScheduleExpressionError(
      `${who} ScheduleExpressionTimezone ${timezone}: only UTC is modelled by the deployment test`,
    );
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate) {
    const n = Number(rate[1]);
    const unit = (rate[2] as string).replace(/s$/, '');
    if (n < 1 || (n === 1) !== (rate[2] === unit))
      throw new ScheduleExpressionError(
        `${who} ScheduleExpression ${expression}: the unit is singular for 1 and plural otherwise`,
      );
    const period = n * (UNITS[unit] as number);
    return {
      nextAfter: (after) =>
        after < createdAt ? createdAt : createdAt + (Math.floor((after - createdAt) / period) + 1) * period,
    };
  }
  const c = /^cron\((.*)\)$/.exec(expression);
  if (c) return cron(`${who} ScheduleExpression ${expression}`, c[1] as string);
  const at = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  if (at) {
    const t = Date.parse(`${at[1]}Z`);
    return { nextAfter: (after) => (t > after ? t : undefined) };
  }
  throw new ScheduleExpressionError(
    `${who} ScheduleExpression ${expression}: not a rate, cron or at expression`,
  );
}
