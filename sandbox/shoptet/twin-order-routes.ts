/** The Shoptet twin's order endpoints: `GET /api/orders/{code}` and `GET /api/orders` (paged, `changeTimeFrom`). */
import type { ServerResponse } from 'node:http';
import type { TwinOrder } from './shoptet-orders.js';
import { envelope, failure, send } from './twin-http.js';
import type { TwinState } from './twin-state.js';

/** Shoptet's `+0000` offset as ISO's `+00:00`, for Date.parse. */
const parseShoptetTime = (text: string) => Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));

export function getOrder(state: TwinState, res: ServerResponse, code: string) {
  const order = state.orders.get(code);
  if (!order) send(res, 404, failure('order-not-found', 'Order not found.'));
  else send(res, 200, envelope({ order }));
}

/** An order as the list shows it. */
const listed = (o: TwinOrder) => ({
  code: o.code,
  guid: o.guid,
  creationTime: o.creationTime,
  changeTime: o.changeTime,
  email: o.email,
  phone: o.phone,
  price: o.price,
  paid: o.paid,
  status: o.status,
});

export function listOrders(state: TwinState, res: ServerResponse, url: URL) {
  const from = url.searchParams.get('changeTimeFrom');
  const since = from ? parseShoptetTime(from) : Number.NEGATIVE_INFINITY;
  const perPage = Math.min(50, Number(url.searchParams.get('itemsPerPage') ?? 50) || 50);
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const changed = [...state.orders.values()]
    .filter((o) => parseShoptetTime(o.changeTime) >= since)
    .sort((a, b) => a.code.localeCompare(b.code));
  const slice = changed.slice((page - 1) * perPage, page * perPage);
  send(
    res,
    200,
    envelope({
      orders: slice.map(listed),
      paginator: {
        totalCount: changed.length,
        page,
        pageCount: Math.ceil(changed.length / perPage),
        itemsOnPage: slice.length,
        itemsPerPage: perPage,
      },
    }),
  );
}
