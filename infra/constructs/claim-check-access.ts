/**
 * What the pollers do in the claim-check bucket, by key prefix (the defaults of
 * functions/core/sync/poll-options.ts, which no deployment setting changes):
 *
 * - `claims/`: large event payloads, written once (`PutObject` with `If-None-Match: *`, known length).
 * - `sync/`: the poll state kept beside the checkpoints — the deletion check's id list
 *   (`sync/<connection>/<collection>/ids.txt.gz`) and a reference list's snapshot — read (a missing
 *   key on the first run answers 404 only with `s3:ListBucket`) and rewritten (known length).
 *
 * Every write has a known length, so no multipart upload is ever started (no `AbortMultipartUpload`).
 */
import { pollOptionsSchema } from '#functions/core/sync/poll-options.js';
import type { BucketAccess } from './grants.js';

/** Key prefix of claim-check payloads. */
export const CLAIM_PREFIX: string = pollOptionsSchema.shape.claimPrefix.parse(undefined);
/** Key prefix of the poll state (id lists, snapshots). */
export const SYNC_STATE_PREFIX: string = pollOptionsSchema.shape.statePrefix.parse(undefined);

/**
 * Access to the claim-check bucket: a poller writes payloads and keeps its poll state
 * (`write`); a consumer resolving `recordRef`s reads payloads (`read`).
 */
export function claimCheckAccessOf(use: { write: boolean; read: boolean }): BucketAccess {
  const claims = [
    ...(use.read ? (['s3:GetObject'] as const) : []),
    ...(use.write ? (['s3:PutObject'] as const) : []),
  ];
  return {
    objects: [
      ...(claims.length > 0 ? [{ prefix: CLAIM_PREFIX, actions: claims }] : []),
      ...(use.write
        ? [{ prefix: SYNC_STATE_PREFIX, actions: ['s3:GetObject', 's3:PutObject'] as const }]
        : []),
    ],
    missingKeysAnswer404: true,
  };
}
