/**
 * Catalog entries of a connection's health: `Connection.Unhealthy` once when a connection starts
 * failing as a whole (its credentials are refused, its secret is missing or malformed, the service
 * cannot be reached), and `Connection.Recovered` once when it works again. Other connections go on.
 * Envelope style of the other events, with `recordType: 'Connection'` and the connection's name as id.
 */
import * as z from 'zod';
import { connectionSchema } from '../connection.js';
import { actionIdempotencyKey } from './action-events.js';
import { type CatalogEntry, ENVELOPE_VERSION } from './catalog-entry.js';

export const CONNECTION_UNHEALTHY = 'Connection.Unhealthy';
export const CONNECTION_RECOVERED = 'Connection.Recovered';
/** The detail-types of a connection's health. */
export type ConnectionDetailType = typeof CONNECTION_UNHEALTHY | typeof CONNECTION_RECOVERED;

export const unhealthyReasons = ['authentication', 'credentials', 'unreachable'] as const;
export type UnhealthyReason = (typeof unhealthyReasons)[number];

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex SHA-256');
const isoDateTime = z.iso.datetime({ offset: true, local: true });

function connectionBase<C extends string>(change: C) {
  return {
    version: z.literal(ENVELOPE_VERSION).describe('Envelope version; bumped on a breaking change.'),
    connection: connectionSchema.describe('The connection whose health changed.'),
    recordType: z.literal('Connection'),
    id: z.string().min(1).describe('The connection name again (every envelope has an id).'),
    change: z.literal(change),
    since: isoDateTime.describe('When the connection entered this state.'),
    idempotencyKey: hex64.describe('Equal for every delivery of this state change.'),
    occurredAt: isoDateTime,
  };
}

export const connectionUnhealthySchema = z
  .object({
    ...connectionBase('Unhealthy'),
    reason: z
      .enum(unhealthyReasons)
      .describe(
        '`authentication`: the service refused the credentials; `credentials`: the secret is missing or malformed; `unreachable`: no answer.',
      ),
    error: z
      .object({ name: z.string().min(1), status: z.number().int().optional() })
      .describe('The error class and HTTP status; never a message that could carry a secret.'),
  })
  .describe('A connection stopped working as a whole; its polls and actions fail until it recovers.');
export type ConnectionUnhealthyDetail = z.infer<typeof connectionUnhealthySchema>;

export const connectionRecoveredSchema = z
  .object({
    ...connectionBase('Recovered'),
    unhealthySince: isoDateTime.describe('When the connection had become unhealthy.'),
  })
  .describe('A connection that was unhealthy works again.');
export type ConnectionRecoveredDetail = z.infer<typeof connectionRecoveredSchema>;

/** The idempotency key of a health change: one per connection, change and `since`. */
export function connectionHealthKey(
  connection: string,
  change: 'Unhealthy' | 'Recovered',
  since: string,
): string {
  return actionIdempotencyKey(connection, 'connection-health', change, since);
}

const example = (change: 'Unhealthy' | 'Recovered', since: string) => ({
  version: ENVELOPE_VERSION,
  connection: 'acme',
  recordType: 'Connection' as const,
  id: 'acme',
  change,
  since,
  idempotencyKey: connectionHealthKey('acme', change, since),
  occurredAt: since,
});

export const connectionEvents: CatalogEntry<ConnectionDetailType>[] = [
  {
    detailType: CONNECTION_UNHEALTHY,
    description: connectionUnhealthySchema.description ?? '',
    schema: connectionUnhealthySchema,
    example: {
      ...example('Unhealthy', '2026-03-04T16:41:00.000Z'),
      reason: 'authentication',
      error: { name: 'AuthenticationError', status: 401 },
    },
  },
  {
    detailType: CONNECTION_RECOVERED,
    description: connectionRecoveredSchema.description ?? '',
    schema: connectionRecoveredSchema,
    example: {
      ...example('Recovered', '2026-03-04T17:02:00.000Z'),
      unhealthySince: '2026-03-04T16:41:00.000Z',
    },
  },
];
