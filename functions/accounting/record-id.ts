/**
 * The shape of the service's record ids, checked wherever an id enters: event envelopes, CLI
 * arguments and path building. Every `Id` of the contract is a GUID (`format: guid` in the public
 * OpenAPI, also the e-invoicing `SendingId`), so nothing else is accepted: `.`, `..`, `/`, `%2e`
 * and any other text that could change which path a request goes to is refused before a request.
 */
import * as z from 'zod';

/** A GUID, any case, without braces: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. */
export const RECORD_ID_PATTERN =
  /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** What a record id must look like, in words (error messages, docs). */
export const RECORD_ID_EXPECTED = 'a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)';

export function isRecordId(value: unknown): value is string {
  return typeof value === 'string' && RECORD_ID_PATTERN.test(value);
}

/** zod schema of a record id; the issue names the expectation, never the value. */
export const recordIdSchema = z
  .string()
  .regex(RECORD_ID_PATTERN, { error: `expected ${RECORD_ID_EXPECTED}` });

/** Path parameters that name a collection (`/v1/{collection}/{id}/Send/Email`): a catalog name. */
export const COLLECTION_PARAM_PATTERN = /^[A-Z][A-Za-z]{1,63}$/;
