/**
 * The invoice made from a shop order, along the chain this product keeps: the shop order → the
 * received order the import created (its `InternalNote` carries the order's mark,
 * `eshopOrderMarker`) → the issued invoice made from it (the cz transfer, or sk's issue slip then
 * invoice: an invoice's items name the received order's items, `ReceivedOrderItemId`, as the
 * transfer action finds its targets). Documents modified before `since` are not read.
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { eshopOrderMarker } from '#functions/core/events/intake-events.js';
import { linksToSource, sourceLinks } from '../transfer-documents/transfer-document.js';

export type OrderInvoice =
  | { found: 'none' }
  | { found: 'order'; receivedOrderId: string }
  | { found: 'invoice'; receivedOrderId: string; invoiceIds: string[] };

async function receivedOrderOf(
  api: AccountingApi,
  eshopOrderId: string,
  since: string,
): Promise<ApiRecord | undefined> {
  const marker = eshopOrderMarker(eshopOrderId);
  for await (const r of api.listItems('ReceivedOrders', { modifiedSince: since })) {
    if (typeof r.InternalNote === 'string' && r.InternalNote.includes(marker)) return r;
  }
  return undefined;
}

export async function findOrderInvoice(
  api: AccountingApi,
  eshopOrderId: string,
  since: string,
): Promise<OrderInvoice> {
  const listed = await receivedOrderOf(api, eshopOrderId, since);
  if (!listed) return { found: 'none' };
  // The record itself: its items, which the invoice's items name.
  const order = await api.get('ReceivedOrders', listed.Id);
  const links = sourceLinks(order);
  const invoiceIds: string[] = [];
  if (links.itemIds.size > 0) {
    for await (const invoice of api.listItems('IssuedInvoices', { modifiedSince: since })) {
      if (linksToSource(invoice, links)) invoiceIds.push(invoice.Id);
    }
  }
  return invoiceIds.length === 0
    ? { found: 'order', receivedOrderId: order.Id }
    : { found: 'invoice', receivedOrderId: order.Id, invoiceIds };
}
