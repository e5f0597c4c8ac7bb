/**
 * The sandbox's ground truth: every version ever made visible, as a log of changes (full copies of
 * the newest only, hashes of all) after the seeded versions.
 */
import { createHash } from 'node:crypto';
import type { ApiRecord } from '../functions/accounting/api.js';
import { iso } from './documents.js';

export type ChangeKind = 'created' | 'updated' | 'deleted';

/** One version of one record as it was (or will be) made visible. */
export interface GroundTruthVersion {
  collection: string;
  id: string;
  change: ChangeKind;
  /** `ModificationInfo.ModifiedDate` of this version (the deletion time for deletes). */
  modifiedDate: string;
  /** Clock time from which the version is visible to clients. */
  visibleFrom: string;
  /** SHA-256 of the record's JSON (empty for deletes). */
  hash: string;
  record?: ApiRecord;
}

export interface LoggedVersion {
  collection: string;
  id: string;
  change: ChangeKind;
  modified: number;
  visibleAt: number;
  hash: string;
  record: ApiRecord | undefined;
}

/** How many of the newest changed versions keep a full copy in the ground truth. */
export const GROUND_TRUTH_COPIES = 100_000;

export function hashRecord(record: unknown): string {
  return createHash('sha256').update(JSON.stringify(record)).digest('hex');
}

export interface GroundTruthFilter {
  collection?: string;
  id?: string;
  includeSeed?: boolean;
  copies?: boolean;
}

/** A seeded version (always visible): created, dated by its generated ModifiedDate. */
export function seededVersion(
  collection: string,
  id: string,
  record: ApiRecord,
  copies: boolean,
): GroundTruthVersion {
  return {
    collection,
    id,
    change: 'created',
    modifiedDate: String(record.ModificationInfo?.ModifiedDate ?? ''),
    visibleFrom: new Date(0).toISOString(),
    hash: hashRecord(record),
    ...(copies ? { record } : {}),
  };
}

/** The logged versions visible at `now`, of collection `wanted` and record `id` where given. */
export function loggedVersions(
  log: readonly LoggedVersion[],
  now: number,
  wanted: string | undefined,
  id: string | undefined,
  copies: boolean,
): GroundTruthVersion[] {
  const out: GroundTruthVersion[] = [];
  for (const v of log) {
    if (v.visibleAt > now) continue;
    if (wanted && v.collection !== wanted) continue;
    if (id && v.id !== id) continue;
    out.push({
      collection: v.collection,
      id: v.id,
      change: v.change,
      modifiedDate: iso(v.modified),
      visibleFrom: iso(v.visibleAt),
      hash: v.hash,
      ...(copies && v.record ? { record: structuredClone(v.record) } : {}),
    });
  }
  return out;
}
