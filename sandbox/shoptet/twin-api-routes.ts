/** The Shoptet twin's API: each endpoint to its route, 404 for the rest. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failure, send } from './twin-http.js';
import { getOrder, listOrders } from './twin-order-routes.js';
import type { TwinState } from './twin-state.js';
import { listWebhooks, registerWebhooks, renewSignatureKey } from './twin-webhook-routes.js';

export async function routeApi(state: TwinState, req: IncomingMessage, res: ServerResponse, url: URL) {
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const orderPath = /^\/api\/orders\/([^/]+)$/.exec(path);
  if (method === 'GET' && orderPath) return getOrder(state, res, decodeURIComponent(orderPath[1] ?? ''));
  if (method === 'GET' && path === '/api/orders') return listOrders(state, res, url);
  if (path === '/api/webhooks' && method === 'GET') return listWebhooks(state, res);
  if (path === '/api/webhooks' && method === 'POST') return registerWebhooks(state, req, res);
  if (path === '/api/webhooks/renew-signature-key' && method === 'POST') return renewSignatureKey(state, res);
  send(res, 404, failure('not-found', 'Endpoint not found.'));
}
