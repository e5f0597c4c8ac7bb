/**
 * Measuring effects for the security suite, over the real wire: the sandbox's admin API (request
 * counts per catalog operation, the e-mail outbox), the S3 bucket on s3rver, and the events the
 * actions published. An effect is a side-effecting request that reached the service, a message in
 * the outbox, an object written, or any published event but `Action.Failed`.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { ListObjectsCommand } from '@aws-sdk/client-s3';
import { operationsFor } from '#functions/accounting/endpoints.js';
import type { BusEvent } from '#functions/core/ports.js';
import type { Sandbox } from '#sandbox/index.js';

const SIDE_EFFECT_KINDS = new Set(['create', 'transfer', 'command']);

/** Catalog operation ids whose call changes something at the service (every variant). */
const sideEffectOperations = new Set(
  (['sk', 'cz'] as const).flatMap((v) =>
    operationsFor(v)
      .filter((op) => SIDE_EFFECT_KINDS.has(op.kind))
      .map((op) => op.id),
  ),
);

async function admin<T>(sandbox: Sandbox, path: string): Promise<T> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/${path}`);
  if (!res.ok) throw new Error(`sandbox admin ${path}: ${res.status}`);
  return (await res.json()) as T;
}

export interface EffectSnapshot {
  /** Requests that reached the sandbox at all (any endpoint, any credential). */
  requests: number;
  /** Requests to side-effecting operations, plus requests to no known operation. */
  sideEffects: number;
  /** E-mails in the sandbox outbox, with their recipients. */
  emails: string[][];
  /** Objects in the watched bucket. */
  objects: number;
}

export async function snapshot(
  sandbox: Sandbox,
  s3?: { client: S3Client; bucket: string },
): Promise<EffectSnapshot> {
  const counts = await admin<{ total: number; byEndpoint: Record<string, number> }>(sandbox, 'requests');
  const outbox = await admin<{ messages: { To: string[] }[] }>(sandbox, 'outbox');
  let objects = 0;
  if (s3) {
    const listed = await s3.client.send(new ListObjectsCommand({ Bucket: s3.bucket }));
    objects = listed.Contents?.length ?? 0;
  }
  const sideEffects = Object.entries(counts.byEndpoint)
    .filter(([endpoint]) => sideEffectOperations.has(endpoint) || endpoint === 'unmatched')
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    // The admin reads themselves are not counted by the sandbox (`/_sandbox` is outside the API).
    requests: counts.total,
    sideEffects,
    emails: outbox.messages.map((m) => m.To),
    objects,
  };
}

/** Effects between two snapshots plus the published events that are not `Action.Failed`. */
export function effectsBetween(
  before: EffectSnapshot,
  after: EffectSnapshot,
  published: readonly BusEvent[] = [],
) {
  return {
    sideEffects: after.sideEffects - before.sideEffects,
    emails: after.emails.length - before.emails.length,
    objects: after.objects - before.objects,
    outcomes: published.filter((e) => e.detailType !== 'Action.Failed').length,
  };
}

export const NO_EFFECTS = { sideEffects: 0, emails: 0, objects: 0, outcomes: 0 } as const;

/** Hostile record ids: traversal, separators, encodings, size, look-alike unicode. */
export const HOSTILE_IDS: readonly string[] = [
  '..',
  '.',
  'a/b',
  '%2e%2e',
  '%2E%2E%2F',
  '..%2f..%2fv1',
  '0e5f1a2b-0000-4000-8000-000000000001/..',
  '../0e5f1a2b-0000-4000-8000-000000000001',
  '0e5f1a2b-0000-4000-8000-000000000001?x=1',
  '0e5f1a2b-0000-4000-8000-000000000001#x',
  ' 0e5f1a2b-0000-4000-8000-000000000001',
  '0e5f1a2b-0000-4000-8000-00000000000１', // a full-width digit
  '０e5f1a2b-0000-4000-8000-000000000001',
  '0e5f1a2b‐0000‐4000‐8000‐000000000001', // Unicode hyphens
  '\u202e0e5f1a2b-0000-4000-8000-000000000001',
  '0e5f1a2b-0000-4000-8000-000000000001\u0000',
  'a'.repeat(10_240),
  '',
];
