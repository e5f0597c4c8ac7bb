/**
 * The service's payment statuses (`DocumentPaymentStatusDto`) of issued invoices and advance
 * invoices: the paged `GET /v1/<collection>/Unpaid` (keyset by `After`, `ModifiedSince`) and the
 * single `GET /v1/<collection>/{id}/RestToPay`, read through the client's typed methods (which
 * validate the answers).
 */

import type { PaymentStatus } from '#functions/accounting/answers.js';
import type { AccountingApi } from '#functions/accounting/api.js';

export type { PaymentStatus } from '#functions/accounting/answers.js';

/** The collections with a payment status. */
export type PayableCollection = 'IssuedInvoices' | 'IssuedAdvanceInvoices';

/**
 * Every unpaid status changed since `modifiedSince` (all of them without it), page by page in
 * keyset order. `onRequest` counts the requests.
 */
export async function* unpaidStatuses(
  api: AccountingApi,
  collection: PayableCollection,
  options: { modifiedSince?: string; pageSize: number; signal?: AbortSignal; onRequest: () => void },
): AsyncGenerator<PaymentStatus[]> {
  let after: string | undefined;
  let read = 0;
  for (;;) {
    options.onRequest();
    const page = await api.unpaid({
      collection,
      query: {
        PageSize: options.pageSize,
        PageNumber: 1,
        ...(after !== undefined ? { After: after } : {}),
        ...(options.modifiedSince !== undefined ? { ModifiedSince: options.modifiedSince } : {}),
      },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    read += page.Items.length;
    if (page.Items.length > 0) yield page.Items;
    const applied = page.Pagination?.PageSize ?? undefined;
    const total = page.TotalItemCount ?? undefined;
    const last =
      page.Items.length === 0 ||
      (applied !== undefined && page.Items.length < applied) ||
      (total !== undefined && read >= total);
    if (last) return;
    after = page.Items[page.Items.length - 1]?.Id;
  }
}

/** The status of one invoice; `undefined` when the service has no such invoice (404: deleted). */
export async function restToPay(
  api: AccountingApi,
  collection: PayableCollection,
  id: string,
  signal?: AbortSignal,
): Promise<PaymentStatus | undefined> {
  try {
    return await api.restToPay({ collection, id, ...(signal ? { signal } : {}) });
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return undefined;
    throw error;
  }
}
