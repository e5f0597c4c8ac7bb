/**
 * A connection's payment reminder list in the action state table: the overdue invoices waiting for
 * a reminder stage, each with the stages already sent, and its read-modify-write.
 */
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { CheckpointConflictError } from '#functions/core/errors.js';
import { payableRecordTypes } from '#functions/core/events/payment-events.js';
import type { CheckpointStore } from '#functions/core/ports.js';

/** Read-modify-write attempts of the reminder list before giving up (the delivery is retried). */
const STATE_ATTEMPTS = 5;

/** One invoice on a connection's reminder list. */
const trackedSchema = z.object({
  recordType: z.enum(payableRecordTypes),
  id: recordIdSchema,
  /** The due date the stages count from (the service's, when the invoice was last looked at). */
  dueDate: z.string().min(1),
  /** The event source of its connection: the outcome's source. */
  source: z.string().min(1),
  /** Id of the `Overdue` event that put it on the list: the causation of its reminders. */
  causationId: z.string().min(1),
  /** Stages sent (or passed over: a later stage was due when it was first seen). */
  stagesDone: z.array(z.union([z.literal(1), z.literal(2)])),
});
export type TrackedInvoice = z.infer<typeof trackedSchema>;

export const reminderListSchema = z.object({ invoices: z.array(trackedSchema) });
export type ReminderList = z.infer<typeof reminderListSchema>;

/** What a look at one invoice decided for the list: it leaves, or it stays as `tracked`. */
export type ListDecision = { kind: 'drop' } | { kind: 'keep'; tracked: TrackedInvoice };

/** The reminder list of a connection in the action state table. */
export function reminderListKey(connection: string): string {
  return `payment-reminders#${connection}`;
}

/** A connection's list as stored (empty when there is none yet). */
export async function readReminderList(
  state: CheckpointStore<unknown>,
  connection: string,
): Promise<ReminderList> {
  const stored = await state.get(reminderListKey(connection));
  return stored ? reminderListSchema.parse(stored.value) : { invoices: [] };
}

/** Read-modify-write of a connection's list, retried on a concurrent change. */
export async function updateReminderList(
  state: CheckpointStore<unknown>,
  connection: string,
  change: (list: ReminderList) => ReminderList,
): Promise<void> {
  const key = reminderListKey(connection);
  for (let attempt = 1; ; attempt += 1) {
    const stored = await state.get(key);
    const list = stored ? reminderListSchema.parse(stored.value) : { invoices: [] };
    try {
      await state.put(key, change(list), stored?.version);
      return;
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || attempt >= STATE_ATTEMPTS) throw error;
    }
  }
}

const sameInvoice = (
  a: Pick<TrackedInvoice, 'recordType' | 'id'>,
  b: Pick<TrackedInvoice, 'recordType' | 'id'>,
) => a.recordType === b.recordType && a.id === b.id;

/** Puts the decision into the list: the invoice with the stages sent merged in, or removed. */
export function applyDecision(
  list: ReminderList,
  tracked: TrackedInvoice,
  decision: ListDecision,
): ReminderList {
  const others = list.invoices.filter((t) => !sameInvoice(t, tracked));
  if (decision.kind === 'drop') return { invoices: others };
  const known = list.invoices.find((t) => sameInvoice(t, tracked) && t.dueDate === decision.tracked.dueDate);
  const stagesDone = [...new Set([...(known?.stagesDone ?? []), ...decision.tracked.stagesDone])].sort();
  return { invoices: [...others, { ...decision.tracked, stagesDone }] };
}
