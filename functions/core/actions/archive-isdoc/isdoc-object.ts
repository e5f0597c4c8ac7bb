/**
 * The archived ISDOC object: its deterministic key and metadata (the document's identity, its
 * SHA-256 and the schema's verdict), written once per version — compared with what the key holds
 * first, a new key written only if absent (`If-None-Match: *`).
 */
import { createHash } from 'node:crypto';
import { ObjectExistsError } from '#functions/core/errors.js';
import type { ArchiveRun, Checked } from './archive-run.js';
import { isdocKeyOfRecord, isNewer, sameContent } from './isdoc-key.js';

export const ISDOC_CONTENT_TYPE = 'application/xml';

/** The object's key and metadata: the document's identity, its checksum and the schema's verdict. */
export function objectOf(run: ArchiveRun, checked: Checked) {
  const { event, record } = run;
  const { envelope } = event;
  const sha256Hex = createHash('sha256').update(checked.bytes).digest('hex');
  const sha256Base64 = Buffer.from(sha256Hex, 'hex').toString('base64');
  const key = isdocKeyOfRecord({
    connection: envelope.connection,
    recordType: run.recordType,
    documentNumber: run.documentNumber,
    id: envelope.id,
    record,
    modifiedDate: envelope.modifiedDate,
  });
  const metadata = {
    'document-id': envelope.id,
    'document-number': encodeURIComponent(run.documentNumber),
    'modified-date': encodeURIComponent(envelope.modifiedDate ?? ''),
    'event-id': encodeURIComponent(event.eventId),
    sha256: sha256Hex,
    'isdoc-schema': checked.verdict.valid ? 'valid' : 'invalid',
  };
  return { key, sha256Hex, sha256Base64, metadata };
}

type WriteDecision = 'write-new' | 'replace' | 'same' | 'stale' | 'republish';

export interface Stored {
  key: string;
  bytes: Buffer;
  sha256Hex: string;
  metadata: Record<string, string>;
  decision: Exclude<WriteDecision, 'write-new'>;
}

/** 3. Write once per version: compare with what the key holds, write a new key only if absent. */
export async function storeOnce(run: ArchiveRun, checked: Checked): Promise<Stored> {
  const { deps, event } = run;
  const { envelope } = event;
  const { bytes } = checked;
  const { key, sha256Hex, sha256Base64, metadata } = objectOf(run, checked);
  const put = (ifNoneMatch: boolean) =>
    deps.objects.put({
      key,
      body: bytes,
      contentType: ISDOC_CONTENT_TYPE,
      contentLength: bytes.length,
      checksumSha256: sha256Base64,
      metadata,
      ifNoneMatch,
    });
  const decide = async (): Promise<WriteDecision> => {
    const existing = await deps.objects.head(key);
    if (!existing) return 'write-new';
    if (sameContent(existing, sha256Hex, sha256Base64)) {
      // Written by an earlier attempt of this very event (which then failed to publish): publish again.
      return existing.metadata['event-id'] === metadata['event-id'] ? 'republish' : 'same';
    }
    return isNewer(existing, envelope.modifiedDate) ? 'stale' : 'replace';
  };
  let decision = await decide();
  if (decision === 'write-new') {
    try {
      await put(true);
      decision = 'replace';
    } catch (error) {
      if (!(error instanceof ObjectExistsError)) throw error;
      // Someone wrote the key between our check and our write: compare again.
      decision = await decide();
      if (decision === 'write-new') decision = 'replace';
      if (decision === 'replace') await put(false);
    }
  } else if (decision === 'replace') {
    // A new version of the document: the bucket is versioned, the earlier version stays retrievable.
    await put(false);
  }
  return { key, bytes, sha256Hex, metadata, decision: decision as Stored['decision'] };
}
