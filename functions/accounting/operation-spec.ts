/** The shape of one operation of the endpoint catalog (`endpoints.ts`). */
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

export interface OperationSpec {
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly kind: OperationKind;
  /** For list operations: the collection read. */
  readonly collection?: CollectionName;
  /** `true` for list operations (paged: `PageSize`, `PageNumber`, `After`, `ModifiedSince`). */
  readonly paged?: boolean;
  /** Paged lists only: the list accepts keyset paging with `After`. */
  readonly acceptsAfter?: boolean;
  readonly assumed: boolean;
  readonly summary: string;
}
