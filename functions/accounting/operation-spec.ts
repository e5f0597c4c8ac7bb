/** The shape of one operation of the endpoint catalog (`endpoints.ts`). */
import type * as z from 'zod';
import type { CollectionName } from './collections.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT';

/**
 * What an operation does, which decides how the client may retry it:
 * - `read`     GET, safe to repeat;
 * - `binary`   GET returning a file (PDF, ISDOC), streamed;
 * - `create`   POST that creates a document or record: never blindly repeated;
 * - `transfer` POST that creates a target document from a source: never blindly repeated;
 * - `command`  POST/PUT with a side effect (send, liquidate, update): never blindly repeated.
 */
export type OperationKind = 'read' | 'binary' | 'create' | 'transfer' | 'command';

/**
 * What an operation answers, which decides how the client reads it:
 * - `json`     a JSON body, parsed with the DTO's schema;
 * - `created`  `EntityCreatedResponseDtoOf<X>`: the created record (`X`'s schema) and warnings;
 * - `file`     a file (PDF, ISDOC), streamed; "not ready yet" on 204;
 * - `none`     an answer the contract does not show: read and dropped.
 */
export type AnswerSpec =
  | { readonly json: z.ZodType }
  | { readonly created: z.ZodType }
  | { readonly file: true }
  | { readonly none: true };

export interface OperationSpec {
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly kind: OperationKind;
  /** The client's typed method that calls this operation (`AccountingApi`). */
  readonly call: string;
  readonly answer: AnswerSpec;
  /** `true` when the operation takes a JSON request body (its schema: `request-bodies.ts`). */
  readonly takesBody?: boolean;
  /** For list operations: the collection read. */
  readonly collection?: CollectionName;
  /** `true` for list operations (paged: `PageSize`, `PageNumber`, `After`, `ModifiedSince`). */
  readonly paged?: boolean;
  /** Paged lists only: the list accepts keyset paging with `After`. */
  readonly acceptsAfter?: boolean;
  readonly assumed: boolean;
  readonly summary: string;
}
