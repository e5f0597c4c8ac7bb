/**
 * The Shoptet twin's webhook endpoints: `GET`/`POST /api/webhooks` (a registration identical to
 * one made within 5 s is locked: 423) and `POST /api/webhooks/renew-signature-key`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { shoptetTime } from './shoptet-orders.js';
import { envelope, failure, readBody, send } from './twin-http.js';
import type { TwinState, Webhook } from './twin-state.js';

export function listWebhooks(state: TwinState, res: ServerResponse) {
  const { webhooks } = state;
  send(
    res,
    200,
    envelope({
      webhooks,
      paginator: {
        totalCount: webhooks.length,
        page: 1,
        pageCount: 1,
        itemsOnPage: webhooks.length,
        itemsPerPage: 50,
      },
    }),
  );
}

type Registration = { event?: unknown; url?: unknown };

/** The registrations of a body, or the reason it is refused. */
function parseRegistrations(text: string): Registration[] | string {
  let data: Registration[] = [];
  try {
    data = (JSON.parse(text) as { data: typeof data }).data;
  } catch {
    return 'Invalid JSON.';
  }
  if (!Array.isArray(data) || data.length === 0 || data.length > 50)
    return 'Expected data: 1 to 50 webhooks.';
  return data;
}

export async function registerWebhooks(state: TwinState, req: IncomingMessage, res: ServerResponse) {
  const text = await readBody(req);
  const last = state.recentWrites.get(text);
  if (last !== undefined && Date.now() - last < 5000) {
    state.stats.locked += 1;
    send(res, 423, failure('locked', 'Identical request within 5 s.'), { 'retry-after': '5' });
    return;
  }
  state.recentWrites.set(text, Date.now());
  const data = parseRegistrations(text);
  if (typeof data === 'string') {
    send(res, 400, failure('invalid-request-body', data));
    return;
  }
  const made: Webhook[] = [];
  for (const d of data) {
    if (typeof d.event !== 'string' || typeof d.url !== 'string' || d.url.length > 2000) {
      send(res, 400, failure('invalid-request-body', 'Expected event and url.'));
      return;
    }
    if (state.webhooks.some((h) => h.event === d.event && h.url === d.url)) continue;
    const hook: Webhook = {
      id: state.nextWebhookId++,
      event: d.event,
      url: d.url,
      created: shoptetTime(new Date()),
      updated: null,
      sendPayload: null,
    };
    state.webhooks.push(hook);
    made.push(hook);
  }
  send(res, 201, envelope({ webhooks: made }));
}

export function renewSignatureKey(state: TwinState, res: ServerResponse) {
  state.signatureKey = randomBytes(16).toString('hex');
  send(res, 200, envelope({ signatureKey: state.signatureKey }));
}
