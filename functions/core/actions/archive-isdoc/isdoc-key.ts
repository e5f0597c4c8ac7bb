/**
 * Where the archive keeps an ISDOC, and how it tells whether a stored object is the same version
 * or a later one than the document at hand.
 */
import type { ApiRecord } from '#functions/accounting/api.js';
import type { ObjectInfo } from '#functions/core/ports.js';
import { stringField } from '../action-event.js';

/** Key prefix of documents refused in strict mode: `rejected/` + the key they would have had. */
export const REJECTED_KEY_PREFIX = 'rejected/';

/** A key segment: keeps letters, digits, `-`, `_`, `.`; anything else becomes `-`. */
function segment(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '-');
}

/** `isdoc/<connection>/<type>/<yyyy>/<mm>/<DocumentNumber>_<Id>.isdoc`; year and month of the issue date. */
export function isdocKey(input: {
  connection: string;
  recordType: string;
  documentNumber: string;
  id: string;
  date: string;
}): string {
  const match = /^(\d{4})-(\d{2})/.exec(input.date);
  const [yyyy, mm] = match ? [match[1], match[2]] : ['0000', '00'];
  return `isdoc/${segment(input.connection)}/${input.recordType}/${yyyy}/${mm}/${segment(input.documentNumber)}_${segment(input.id)}.isdoc`;
}

/**
 * The date a document's ISDOC key is made from: the issue date, else its creation, else the
 * event's modification date (the archive and the e-invoice sending records both use it).
 */
export function isdocDateOf(record: ApiRecord, modifiedDate: string | null): string {
  return stringField(record, 'IssueDate') ?? record.ModificationInfo?.CreatedDate ?? modifiedDate ?? '';
}

/** The key of a document's ISDOC, from the document as the service returns it. */
export function isdocKeyOfRecord(input: {
  connection: string;
  recordType: string;
  documentNumber: string;
  id: string;
  record: ApiRecord;
  modifiedDate: string | null;
}): string {
  const { record, modifiedDate, ...identity } = input;
  return isdocKey({ ...identity, date: isdocDateOf(record, modifiedDate) });
}

export function sameContent(info: ObjectInfo, sha256Hex: string, sha256Base64: string): boolean {
  return info.metadata.sha256 === sha256Hex || info.checksumSha256 === sha256Base64;
}

/** The existing object is of a later version than ours (so ours must not replace it). */
export function isNewer(info: ObjectInfo, modifiedDate: string | null): boolean {
  const theirs = info.metadata['modified-date'];
  if (!theirs || !modifiedDate) return false;
  return Date.parse(decodeURIComponent(theirs)) > Date.parse(modifiedDate);
}
