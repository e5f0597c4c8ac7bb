/** The payment reminders' settings (`config.paymentReminders`), shared by the reminder and its pass. */
import * as z from 'zod';
import { defineActionSettings, flag, type SectionOf } from '../action-settings.js';

/** Days overdue of the two reminder stages by default. */
export const DEFAULT_REMINDER_DAYS = { first: 7, second: 21 } as const;
export const DEFAULT_REMINDER_SUBJECT = 'Payment reminder: invoice {DocumentNumber}';

const reminderDays = (fallback: number) =>
  z.coerce
    .number({ error: 'expected whole days overdue (1…365)' })
    .int({ error: 'expected whole days overdue (1…365)' })
    .min(1, { error: 'expected whole days overdue (1…365)' })
    .max(365, { error: 'expected whole days overdue (1…365)' })
    .optional()
    .transform((v) => v ?? fallback);

export const reminderSettings = defineActionSettings(
  'paymentReminders',
  {
    ACTIONS_PAYMENT_REMINDERS: {
      schema: flag(false),
      default: 'false',
      description: 'payment reminders of overdue issued (advance) invoices (needs `POLLER_PAYMENTS`)',
    },
    ACTIONS_PAYMENT_REMINDER_FIRST_DAYS: {
      schema: reminderDays(DEFAULT_REMINDER_DAYS.first),
      default: String(DEFAULT_REMINDER_DAYS.first),
      description: 'days overdue before the first reminder',
    },
    ACTIONS_PAYMENT_REMINDER_SECOND_DAYS: {
      schema: reminderDays(DEFAULT_REMINDER_DAYS.second),
      default: String(DEFAULT_REMINDER_DAYS.second),
      description: 'days overdue before the second (last) reminder; more than the first',
    },
    ACTIONS_PAYMENT_REMINDER_SUBJECT: {
      schema: z
        .string()
        .trim()
        .min(1, { error: 'expected a subject text' })
        .max(200, { error: 'expected a subject of at most 200 characters' })
        .optional(),
      default: `\`${DEFAULT_REMINDER_SUBJECT}\``,
      description: 'subject of a reminder',
    },
  },
  (e) => ({
    enabled: e.ACTIONS_PAYMENT_REMINDERS,
    /** Days overdue before the first reminder, and before the second. */
    stageDays: [e.ACTIONS_PAYMENT_REMINDER_FIRST_DAYS, e.ACTIONS_PAYMENT_REMINDER_SECOND_DAYS] as const,
    subject: e.ACTIONS_PAYMENT_REMINDER_SUBJECT ?? DEFAULT_REMINDER_SUBJECT,
  }),
  (e, ctx) => {
    if (e.ACTIONS_PAYMENT_REMINDER_SECOND_DAYS <= e.ACTIONS_PAYMENT_REMINDER_FIRST_DAYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['ACTIONS_PAYMENT_REMINDER_SECOND_DAYS'],
        message: `expected more days than ACTIONS_PAYMENT_REMINDER_FIRST_DAYS (${e.ACTIONS_PAYMENT_REMINDER_FIRST_DAYS})`,
      });
    }
  },
);

declare module '../config.js' {
  interface ActionSections {
    paymentReminders: SectionOf<typeof reminderSettings>;
  }
}
