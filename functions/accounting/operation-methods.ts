/**
 * The client's typed methods for the operations outside the per-collection ones, derived from the
 * endpoint catalog's rows (`explicit-operations.ts`): each row names its method (`call`); rows that
 * share a method differ by collection, which the method then takes. A method's input holds the
 * path parameters of its path, its body (typed by `request-bodies.ts`) and, for paged lists, the
 * page query; its answer is what the row's answer schema yields. Nothing here is written per
 * operation: a new row is a new typed method.
 */
import type * as z from 'zod';
import type { CallInput, Created, Download, NotReady } from './call-results.js';
import type { CollectionName } from './collections.js';
import { InvalidArgumentError } from './errors.js';
import { explicitOperations } from './explicit-operations.js';
import type { RequestBodyOf } from './request-bodies.js';

type Row = (typeof explicitOperations)[number];

/** The name of a typed method derived from the catalog. */
export type OperationMethodName = Row['call'];

type RowsOf<N extends OperationMethodName> = Extract<Row, { readonly call: N }>;
type CollectionOfId<I> = I extends `${infer C}.${string}` ? C : never;
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : false;
type PathParams<P> = P extends `${string}{${infer N}}${infer Rest}` ? N | PathParams<Rest> : never;

/** The query of a paged list (`PageSize` and `PageNumber` are required by the service). */
export interface PageQuery {
  readonly PageSize: number;
  readonly PageNumber: number;
  /** Keyset paging: records after this `Id`. */
  readonly After?: string;
  /** ISO date-time: records modified since. */
  readonly ModifiedSince?: string;
}

type CollectionInput<R extends Row> = [IsUnion<CollectionOfId<R['id']>>] extends [true]
  ? { readonly collection: CollectionOfId<R['id']> }
  : unknown;
type ParamsInput<R extends Row> = {
  readonly [N in PathParams<R['path']>]: N extends 'collection' ? CollectionName : string;
};
type BodyInput<R extends Row> = R extends { readonly takesBody: true }
  ? { readonly body: RequestBodyOf<R['id']> }
  : unknown;
type QueryInput<R extends Row> = R extends { readonly paged: true } ? { readonly query: PageQuery } : unknown;

/** What a method takes: its collection (when several share it), path parameters, body, query. */
export type OperationInput<N extends OperationMethodName> = CollectionInput<RowsOf<N>> &
  ParamsInput<RowsOf<N>> &
  BodyInput<RowsOf<N>> &
  QueryInput<RowsOf<N>> & { readonly signal?: AbortSignal };

type AnswerOf<A> = A extends { readonly json: infer S extends z.ZodType }
  ? z.output<S>
  : A extends { readonly created: infer S extends z.ZodType }
    ? Created<z.output<S>>
    : A extends { readonly file: true }
      ? Download | NotReady
      : undefined;

/** What a method answers, parsed. */
export type OperationAnswer<N extends OperationMethodName> = AnswerOf<RowsOf<N>['answer']>;

export type OperationMethods = {
  readonly [N in OperationMethodName]: (input: OperationInput<N>) => Promise<OperationAnswer<N>>;
};

/** Sends one operation of the catalog and reads its answer as its row says (`calls.ts#invoke`). */
export type Invoke = (operationId: string, input: CallInput) => Promise<unknown>;

const rowsByMethod = new Map<string, Row[]>();
for (const row of explicitOperations)
  rowsByMethod.set(row.call, [...(rowsByMethod.get(row.call) ?? []), row]);

/** Every method name derived from the catalog, in the catalog's order. */
export const operationMethodNames = [...rowsByMethod.keys()] as OperationMethodName[];

/** The catalog operation a method's input selects: its only row, or the row of its collection. */
function operationIdOf(method: string, collection: unknown): string {
  const rows = rowsByMethod.get(method) ?? [];
  if (rows.length === 1) return (rows[0] as Row).id;
  const row = rows.find((r) => r.id === `${String(collection)}.${r.id.split('.')[1]}`);
  if (!row) {
    const names = rows.map((r) => r.id.split('.')[0]).join(', ');
    throw new InvalidArgumentError('collection', `one of ${names} for ${method}`);
  }
  return row.id;
}

function methodOf(method: string, invoke: Invoke) {
  return async (
    input: Record<string, unknown> & { signal?: AbortSignal; body?: unknown; query?: unknown },
  ) => {
    const { signal, body, query, ...params } = input;
    const id = operationIdOf(method, params.collection);
    return invoke(id, {
      params: params as Record<string, string>,
      ...(query !== undefined ? { query: query as CallInput['query'] } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(signal ? { signal } : {}),
    });
  };
}

/** The typed methods over `invoke`: the client's own, or any caller that reads answers as the catalog says. */
export function operationMethods(invoke: Invoke): OperationMethods {
  return Object.fromEntries(
    operationMethodNames.map((name) => [name, methodOf(name, invoke)]),
  ) as unknown as OperationMethods;
}

/** The typed methods of the api `resolve` gives at each call (`api-through.ts`). */
export function operationMethodsThrough(
  resolve: () => OperationMethods | Promise<OperationMethods>,
): OperationMethods {
  return Object.fromEntries(
    operationMethodNames.map((name) => [
      name,
      async (input: unknown) => ((await resolve())[name] as (input: unknown) => Promise<unknown>)(input),
    ]),
  ) as unknown as OperationMethods;
}
