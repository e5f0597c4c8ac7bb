/**
 * The intake endpoint's use case, the same on AWS (HTTP API → Lambda) and locally (`run
 * --intake-port`): check the source, method, content type and size, verify the signature on the
 * raw body, only then parse and validate, queue the order for the import and answer 202.
 *
 * The connection is the path's (`/intake/{connection}/{source}`), or the deployment's own for
 * `/intake/{source}` (`intake-connections.ts`); it is looked up once the signature is verified.
 *
 * Answers: 404 unknown or disabled source (no secret) · 405 not POST · 415 not JSON · 413 body
 * over the limit · 401 missing, wrong or stale signature · 404 a connection not in the registry
 * (or none named where there are several) ·
 * 503 a paused connection (the shop delivers again later) · 400 a Shopify or WooCommerce delivery
 * without its topic header · 200 `{ignored: true}` a signed delivery
 * of a topic the intake does not import (a shop retries, then drops, a webhook that keeps failing)
 * · 400 malformed JSON · 422 schema failure (the problems listed) · 202 queued. A payment topic
 * (`orders/paid`, WooCommerce's paid order) publishes `EshopOrder.Paid` (`receive-payment.ts`).
 * Nothing is queued on any 4xx or an ignored topic. Logs carry the source, the status and the reason, never a body,
 * a header value (the topic name excepted) or a secret.
 */
import { createHash } from 'node:crypto';
import type { Clock, EventPublisher, Logger, ObjectStore } from '../ports.js';
import type { IntakeConfig } from './intake-config.js';
import type { IntakeConnections, IntakeTarget } from './intake-connections.js';
import { publishIntakeEvent } from './intake-events-out.js';
import { IGNORED, type IntakeLog, type IntakeResponse, issuesOf, reply } from './intake-response.js';
import { queueOrder } from './order-claim-check.js';
import type { IntakeQueue } from './ports.js';
import { acceptPayment, announcePayment, paymentOf, reportsPayment } from './receive-payment.js';
import { acceptShoptetNotification } from './receive-shoptet.js';
import type { RotatingSecrets } from './rotating-secrets.js';
import {
  type IntakeMessage,
  type IntakeSource,
  isIntakeSource,
  type ShopOrder,
  shopOrderSchema,
} from './shop-order.js';
import { type PlatformFieldNames, shopifyOrderSchema, shopifyToShopOrder } from './shopify-order.js';
import { type Headers, SignatureError, verifySignature } from './signatures.js';
import { wooOrderSchema, wooToShopOrder } from './woocommerce-order.js';

export type { IntakeResponse } from './intake-response.js';

export interface IntakeRequest {
  method: string;
  /** The `<source>` path segment. */
  source: string;
  /** The `<connection>` path segment of `/intake/<connection>/<source>`; absent for `/intake/<source>`. */
  connection?: string;
  /** Lower-case header names. */
  headers: Headers;
  body: Buffer;
  /** Set when the transport stopped reading because the body exceeded the limit. */
  truncated?: boolean;
}

export interface ReceiveDeps {
  config: Pick<IntakeConfig, 'secrets' | 'maxBodyBytes' | 'maxQueueMessageBytes' | 'mapping'>;
  /** The connection a request is for, from the registry. */
  connections: IntakeConnections;
  queue: IntakeQueue;
  /** Where an order too large for a queue message is claim-checked. */
  orderStore?: ObjectStore;
  publisher: EventPublisher;
  clock: Clock;
  logger: Logger;
  /**
   * The signing secrets as they rotate (Secrets Manager on AWS); without it, `config.secrets`
   * (the environment's, fixed for the process).
   */
  signingSecrets?: RotatingSecrets;
}

const DELIVERY_HEADERS: Record<Exclude<IntakeSource, 'shoptet'>, string> = {
  shopify: 'x-shopify-webhook-id',
  woocommerce: 'x-wc-webhook-delivery-id',
  generic: 'webhook-id',
};
/**
 * The topic header and the one topic imported; a delivery without the header is refused (400).
 * The topics that report a payment are `receive-payment.ts`'s.
 */
export const TOPIC_HEADERS: Partial<Record<IntakeSource, [string, string]>> = {
  shopify: ['x-shopify-topic', 'orders/create'],
  woocommerce: ['x-wc-webhook-topic', 'order.created'],
};

/** The platform payload → the shop order, or the problems (field: expectation). */
function toShopOrder(
  source: IntakeSource,
  json: unknown,
  fields: PlatformFieldNames,
): { order: ShopOrder } | { problems: string[] } {
  let order: unknown = json;
  if (source === 'shopify') {
    const parsed = shopifyOrderSchema.safeParse(json);
    if (!parsed.success) return { problems: issuesOf(parsed.error) };
    order = shopifyToShopOrder(parsed.data, fields);
  } else if (source === 'woocommerce') {
    const parsed = wooOrderSchema.safeParse(json);
    if (!parsed.success) return { problems: issuesOf(parsed.error) };
    order = wooToShopOrder(parsed.data, fields);
  }
  const checked = shopOrderSchema.safeParse(order);
  if (!checked.success) return { problems: issuesOf(checked.error, source === 'generic' ? '' : 'order.') };
  return { order: checked.data };
}

const idOf = (json: unknown): string | undefined => {
  const id = (json as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id).slice(0, 64) : undefined;
};

async function secretsOf(deps: ReceiveDeps, source: IntakeSource): Promise<string[]> {
  if (deps.signingSecrets) return deps.signingSecrets.accepted(source);
  const secret = deps.config.secrets[source];
  return secret ? [secret] : [];
}

/**
 * The signature checked with every accepted secret; when none matches, the secrets are read again
 * (a shop may sign with a secret rotated since the last read) and the new ones tried. Returns the
 * error of the last check, or undefined when one matched.
 */
async function signatureError(
  deps: ReceiveDeps,
  source: IntakeSource,
  secrets: string[],
  request: IntakeRequest,
): Promise<SignatureError | undefined> {
  const tried = new Set<string>();
  const attempt = (candidates: string[]): SignatureError | undefined => {
    let last: SignatureError | undefined;
    for (const secret of candidates) {
      if (tried.has(secret)) continue;
      tried.add(secret);
      try {
        verifySignature(source, secret, request.body, request.headers);
        return undefined;
      } catch (error) {
        if (!(error instanceof SignatureError)) throw error;
        last = error;
        // Missing headers or a stale timestamp fail with any secret.
        if (error.reason !== 'mismatch') return error;
      }
    }
    return last ?? new SignatureError('mismatch', 'signature does not match the body');
  };
  const first = attempt(secrets);
  if (first?.reason !== 'mismatch' || !deps.signingSecrets) return first;
  if (!(await deps.signingSecrets.reread())) return first;
  const fresh = (await deps.signingSecrets.accepted(source)).filter((s) => !tried.has(s));
  return fresh.length === 0 ? first : attempt(fresh);
}

export async function receiveWebhook(deps: ReceiveDeps, request: IntakeRequest): Promise<IntakeResponse> {
  const { config, logger } = deps;
  const source = request.source;
  const secrets = isIntakeSource(source) ? await secretsOf(deps, source) : [];
  const log = (status: number, reason: string, data: Record<string, unknown> = {}) => {
    const entry = {
      source: isIntakeSource(source) ? source : 'unknown',
      status,
      reason,
      bytes: request.body.length,
      ...data,
    };
    if (status >= 400) logger.warn('intake request refused', entry);
    else if (reason === IGNORED) logger.info('intake request ignored', entry);
    else logger.info('intake request accepted', entry);
  };
  if (!isIntakeSource(source) || secrets.length === 0) {
    log(404, 'unknown or disabled source');
    return reply(404, { error: 'no intake for this source' });
  }
  if (request.method.toUpperCase() !== 'POST') {
    log(405, 'method');
    return reply(405, { error: 'only POST is accepted' }, { allow: 'POST' });
  }
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (source === 'woocommerce' && contentType === 'application/x-www-form-urlencoded') {
    // WooCommerce pings a new webhook's URL with `webhook_id=<n>`, unsigned; it creates nothing.
    if (/^webhook_id=\d{1,12}$/.test(request.body.toString('latin1').trim())) {
      log(200, 'woocommerce ping');
      return reply(200, { ping: true });
    }
  }
  if (contentType !== 'application/json') {
    log(415, 'content type');
    return reply(415, { error: 'expected Content-Type: application/json' });
  }
  if (request.truncated || request.body.length > config.maxBodyBytes) {
    log(413, 'body too large');
    return reply(413, { error: `the body is over ${config.maxBodyBytes} bytes` });
  }
  const refused = await signatureError(deps, source, secrets, request);
  if (refused) {
    log(401, `signature ${refused.reason}`);
    return reply(401, { error: refused.message });
  }
  const target = await deps.connections.resolve(request.connection);
  if (target === 'unnamed') {
    log(404, 'connection not named');
    return reply(404, { error: 'several connections: POST /intake/<connection>/<source>' });
  }
  if (target === 'unknown') {
    log(404, 'unknown connection');
    return reply(404, { error: 'no intake for this connection' });
  }
  if (target === 'paused') {
    // Nothing is queued; the shop delivers again, and the order is imported once it is resumed.
    log(503, 'connection paused', { connection: request.connection });
    return reply(503, { error: 'the connection is paused; deliver again later' }, { 'retry-after': '300' });
  }
  return acceptSigned(deps, target, source, request, log);
}

async function acceptSigned(
  deps: ReceiveDeps,
  target: IntakeTarget,
  source: IntakeSource,
  request: IntakeRequest,
  log: IntakeLog,
): Promise<IntakeResponse> {
  if (source === 'shoptet') {
    return acceptShoptetNotification(
      { queue: deps.queue, clock: deps.clock, connection: target.connection },
      request,
      log,
    );
  }
  const { config } = deps;
  const deliveryId =
    request.headers[DELIVERY_HEADERS[source]]?.trim().slice(0, 128) ||
    createHash('sha256').update(request.body).digest('hex');
  const topic = TOPIC_HEADERS[source];
  const givenTopic = topic ? request.headers[topic[0]]?.trim() : undefined;
  if (topic && !givenTopic) {
    // Both shops always send it; a body signed for another topic must not pass for an order.
    log(400, 'topic header missing', { deliveryId });
    return reply(400, { error: `the ${topic[0]} header is required` });
  }
  const createsOrder = !topic || givenTopic === topic[1];
  const paid = reportsPayment(source, givenTopic);
  if (!createsOrder && !paid) {
    // Signed, but neither an order to create nor a payment (orders/updated, order.deleted, …):
    // answered 2xx so the shop neither retries it nor disables the webhook; nothing is queued.
    const ignored = (givenTopic ?? '').slice(0, 64);
    log(200, IGNORED, { deliveryId, topic: ignored });
    return reply(200, { ignored: true, topic: ignored });
  }
  let json: unknown;
  try {
    json = JSON.parse(request.body.toString('utf8'));
  } catch {
    log(400, 'malformed JSON', { deliveryId });
    return reply(400, { error: 'malformed JSON', problems: ['(body): not valid JSON'] });
  }
  if (!createsOrder) {
    return acceptPayment(deps, target, { source, json, deliveryId, topic: givenTopic ?? '' }, log);
  }
  const result = toShopOrder(source, json, {
    registrationNumber: config.mapping.registrationNumberFields,
    vatNumber: config.mapping.vatNumberFields,
  });
  if ('problems' in result) {
    log(422, 'schema', { deliveryId, problems: result.problems.slice(0, 20) });
    const shopOrderId = idOf(json);
    if (shopOrderId) {
      await publishIntakeEvent(
        { ...deps, eventSource: target.eventSource },
        { connection: target.connection, source, shopOrderId, orderNumber: null },
        'Rejected',
        { stage: 'validation', reasons: result.problems },
        deliveryId,
      );
    }
    return reply(422, { error: 'the order does not match the expected schema', problems: result.problems });
  }
  const { order } = result;
  const message: IntakeMessage = {
    version: 1,
    connection: target.connection,
    source,
    deliveryId,
    receivedAt: deps.clock.now().toISOString(),
    order,
  };
  const queued = await queueOrder(
    { queue: deps.queue, orderStore: deps.orderStore, maxMessageBytes: config.maxQueueMessageBytes },
    message,
    // Per connection: two shops may number their orders and deliveries alike.
    {
      deduplicationId: `${target.connection}:${source}:${deliveryId}`,
      groupId: `${target.connection}:${source}:${order.id}`,
    },
  );
  await publishIntakeEvent(
    { ...deps, eventSource: target.eventSource },
    { connection: target.connection, source, shopOrderId: order.id, orderNumber: order.number },
    'Received',
    { deliveryId, lineCount: order.lines.length, currency: order.currency },
    deliveryId,
  );
  // An order created paid (WooCommerce's `set_paid`, a gateway that paid at checkout) is a payment too.
  const payment = paid ? paymentOf(source, json) : undefined;
  if (payment && 'payment' in payment && payment.payment) {
    await announcePayment(
      { ...deps, eventSource: target.eventSource },
      target.connection,
      source,
      payment.payment,
      deliveryId,
    );
  }
  log(202, 'queued', {
    connection: target.connection,
    deliveryId,
    shopOrderId: order.id,
    lineCount: order.lines.length,
    messageBytes: queued.messageBytes,
    claimChecked: queued.claimChecked,
  });
  return reply(202, { accepted: true, id: `${source}:${order.id}` });
}
