/**
 * The stage arithmetic of payment reminders: whole days overdue, and the stage those days make due
 * (`ACTIONS_PAYMENT_REMINDER_FIRST_DAYS` → stage 1, `ACTIONS_PAYMENT_REMINDER_SECOND_DAYS` → stage 2).
 */
import type { ReminderStage } from './events.js';

const DAY_MS = 86_400_000;

/** Whole days from `dueDate` (a date or date-time; a date is its start, UTC) to `now`. */
export function daysOverdue(dueDate: string, now: Date): number | undefined {
  const due = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(dueDate) ? `${dueDate}T00:00:00Z` : dueDate);
  if (Number.isNaN(due)) return undefined;
  return Math.floor((now.getTime() - due) / DAY_MS);
}

/** The stage due after `days` overdue (0: none yet). */
export function stageDue(days: number, stageDays: readonly [number, number]): 0 | ReminderStage {
  if (days >= stageDays[1]) return 2;
  if (days >= stageDays[0]) return 1;
  return 0;
}
