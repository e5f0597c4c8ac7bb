/**
 * The service's payment statuses (`DocumentPaymentStatusDto`) of issued invoices and advance
 * invoices: the paged `GET /v1/<collection>/Unpaid` (keyset by `After`, `ModifiedSince`) and the
 * single `GET /v1/<collection>/{id}/RestToPay`. Answers validated with zod.
 */
import * as z from 'zod';
import type { AccountingApi } from '../../accounting/api.js';
import { SyncDataError } from '../errors.js';

const liquidationInfoSchema = z.object({
  Id: z.string().min(1, 'expected a liquidation Id'),
  Date: z.string().nullish(),
  DocumentCurrencyAmount: z.number({ error: 'expected DocumentCurrencyAmount (a number)' }),
});

export const paymentStatusSchema = z.object({
  Id: z.string().min(1, 'expected a non-empty Id'),
  Number: z.string().nullish(),
  RestToPay: z.number({ error: 'expected RestToPay (a number)' }),
  LiquidationInfos: z.array(liquidationInfoSchema).nullish(),
});
export type PaymentStatus = z.infer<typeof paymentStatusSchema>;

const unpaidPageSchema = z.object({
  Items: z.array(paymentStatusSchema),
  TotalItemCount: z.number().int().nonnegative().optional(),
  Pagination: z.object({ PageSize: z.number().int().positive().nullish() }).loose().nullish(),
});

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new SyncDataError(`${what}: ${issue?.path.join('.') || '(body)'}: ${issue?.message}`);
}

/**
 * Every unpaid status changed since `modifiedSince` (all of them without it), page by page in
 * keyset order. `onRequest` counts the requests.
 */
export async function* unpaidStatuses(
  api: AccountingApi,
  collection: string,
  options: { modifiedSince?: string; pageSize: number; signal?: AbortSignal; onRequest: () => void },
): AsyncGenerator<PaymentStatus[]> {
  let after: string | undefined;
  let read = 0;
  for (;;) {
    options.onRequest();
    const body = await api.call(`${collection}.unpaid`, {
      query: {
        PageSize: options.pageSize,
        PageNumber: 1,
        ...(after !== undefined ? { After: after } : {}),
        ...(options.modifiedSince !== undefined ? { ModifiedSince: options.modifiedSince } : {}),
      },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const page = parse(unpaidPageSchema, body, `${collection}/Unpaid`);
    read += page.Items.length;
    if (page.Items.length > 0) yield page.Items;
    const applied = page.Pagination?.PageSize ?? undefined;
    const last =
      page.Items.length === 0 ||
      (applied !== undefined && page.Items.length < applied) ||
      (page.TotalItemCount !== undefined && read >= page.TotalItemCount);
    if (last) return;
    after = page.Items[page.Items.length - 1]?.Id;
  }
}

/** The status of one invoice; `undefined` when the service has no such invoice (404: deleted). */
export async function restToPay(
  api: AccountingApi,
  collection: string,
  id: string,
  signal?: AbortSignal,
): Promise<PaymentStatus | undefined> {
  try {
    const body = await api.call(`${collection}.restToPay`, {
      params: { id },
      ...(signal ? { signal } : {}),
    });
    return parse(paymentStatusSchema, body, `${collection}/${id}/RestToPay`);
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return undefined;
    throw error;
  }
}
