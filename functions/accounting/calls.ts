/**
 * The client's calls over the endpoint catalog: each checks its input (operation, collection, id,
 * path parameters, request body) before anything is sent, builds the exchange and reads the
 * answer with the catalog's schemas (each operation's `answer`).
 */

import type * as z from 'zod';
import type { ApiRecord, CallInput, Created, Download, ListOptions, NotReady, Page, Warning } from './api.js';
import { type CollectionName, type CollectionSpec, findCollection } from './collections.js';
import type { AccountingConfig } from './config.js';
import { buildPath, type OperationSpec } from './endpoints.js';
import { InvalidArgumentError, type RequestInfo } from './errors.js';
import { type ExchangeContext, exchange } from './exchange.js';
import { paginate, type RawPage } from './pagination.js';
import { isRecordId, RECORD_ID_EXPECTED } from './record-id.js';
import type { ReloadableAuth } from './reloadable-auth.js';
import { requestSchemaFor } from './request-bodies.js';
import { discard, header, parseJson, readText, validate } from './responses.js';
import {
  createdEnvelopeSchema,
  expectedOf,
  fieldPath,
  listEnvelopeSchema,
  recordFieldsSchemaFor,
  recordSchema,
  recordSchemaFor,
} from './schemas.js';
import type { RawResponse } from './transport.js';

/** What every call of one client shares. */
export interface CallContext {
  readonly config: AccountingConfig;
  readonly ops: ReadonlyMap<string, OperationSpec>;
  readonly exchange: ExchangeContext;
  readonly auth: ReloadableAuth;
}

type ReadJson<T> = (value: unknown, req: RequestInfo, status: number, res: RawResponse) => T;

function operation(c: CallContext, operationId: string): OperationSpec {
  const op = c.ops.get(operationId);
  if (!op)
    throw new InvalidArgumentError(
      'operationId',
      `an operation of the endpoint catalog, not '${operationId}'`,
    );
  return op;
}

function urlFor(c: CallContext, op: OperationSpec, input: CallInput = {}): URL {
  let path: string;
  try {
    path = buildPath(op.path, input.params);
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw error;
    throw new InvalidArgumentError('params', `the path parameters of ${op.id} (${op.path})`, {
      cause: error,
    });
  }
  const url = new URL(c.config.baseUrl + path);
  for (const [k, v] of Object.entries(input.query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
}

/** A body the variant's DTO refuses never leaves: the error names the first bad field. */
function checkBody(c: CallContext, op: OperationSpec, body: unknown): void {
  const schema = requestSchemaFor(c.config.variant, op.id);
  if (!schema || body === undefined) return;
  const parsed = schema.safeParse(body);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const where = issue ? fieldPath(issue.path) : '(body)';
  const what = issue
    ? issue.code === 'unrecognized_keys'
      ? 'no property the DTO lacks'
      : expectedOf(issue)
    : '';
  throw new InvalidArgumentError('body', `a request body of ${op.id} (${where}: ${what})`, {
    cause: parsed.error,
  });
}

function jsonExchange<T>(c: CallContext, op: OperationSpec, input: CallInput, read: ReadJson<T>): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let body: string | undefined;
  checkBody(c, op, input.body);
  if (input.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(input.body);
  }
  return exchange(c.exchange, {
    operationId: op.id,
    kind: op.kind,
    method: op.method,
    url: urlFor(c, op, input),
    headers,
    ...(body !== undefined ? { body } : {}),
    signal: input.signal,
    auth: c.auth,
    consume: async (res, req) => {
      const text = await readText(res);
      res.done();
      return read(parseJson(text, req), req, res.status, res);
    },
  });
}

function collectionSpec(c: CallContext, collection: string): CollectionSpec {
  const spec = findCollection(collection, c.config.variant);
  if (!spec || spec.name !== collection) {
    throw new InvalidArgumentError(
      'collection',
      `a collection of the ${c.config.variant} catalog, not '${collection}'`,
    );
  }
  return spec;
}

export function listPages<T extends ApiRecord = ApiRecord>(
  c: CallContext,
  collection: CollectionName,
  options: ListOptions = {},
): AsyncIterable<Page<T>> {
  const spec = collectionSpec(c, collection);
  const op = operation(c, `${spec.name}.list`);
  const envelope = listEnvelopeSchema(recordFieldsSchemaFor(spec));
  const readPage: ReadJson<RawPage<T>> = (value, req, _status, res) => {
    const page = validate(envelope, value, req);
    const date = Date.parse(header(res, 'date') ?? '');
    return {
      // Every item passed the record checks above; the items are the service's own, every field kept.
      items: (value as { Items: T[] }).Items,
      totalItemCount: page.TotalItemCount ?? undefined,
      appliedPageSize: page.Pagination?.PageSize ?? undefined,
      ...(Number.isNaN(date) ? {} : { serverTime: new Date(date).toISOString() }),
    };
  };
  return {
    [Symbol.asyncIterator]: () =>
      paginate<T>(spec, options, c.config.pageSize, (query, signal) =>
        jsonExchange(c, op, { query, ...(signal ? { signal } : {}) }, readPage),
      ),
  };
}

export async function getRecord<T extends ApiRecord = ApiRecord>(
  c: CallContext,
  collection: CollectionName,
  id: string,
  signal?: AbortSignal,
): Promise<T> {
  const spec = collectionSpec(c, collection);
  if (!spec.getById)
    throw new InvalidArgumentError('collection', `a collection with get by id (${spec.name} has none)`);
  if (!isRecordId(id)) throw new InvalidArgumentError('id', RECORD_ID_EXPECTED);
  const op = operation(c, `${spec.name}.get`);
  return jsonExchange(
    c,
    op,
    { params: { id }, ...(signal ? { signal } : {}) },
    (value, req) => validate(recordSchemaFor(spec), value, req) as T,
  );
}

const createdEnvelopes = new WeakMap<z.ZodType, ReturnType<typeof createdEnvelopeSchema>>();

/** `EntityCreatedResponseDtoOf<X>` read with `X`'s schema; an empty answer created nothing visible. */
function readCreated<T>(data: z.ZodType, value: unknown, req: RequestInfo): Created<T> {
  if (value === undefined) return { data: null, warnings: [] };
  let envelope = createdEnvelopes.get(data);
  if (!envelope) {
    envelope = createdEnvelopeSchema(data);
    createdEnvelopes.set(data, envelope);
  }
  const created = validate(envelope, value, req);
  return {
    data: (created.Data ?? null) as T | null,
    warnings: (created.Warnings ?? []).map((w): Warning => ({ Code: w.Code, Message: w.Message ?? '' })),
  };
}

/**
 * A JSON answer read as the operation's row says: parsed with its DTO's schema, a created
 * envelope, or (an answer the contract does not show) dropped. Throws `SchemaMismatchError`
 * naming the first field that does not match.
 */
export function readAnswer(op: OperationSpec, value: unknown, req: RequestInfo): unknown {
  const { answer } = op;
  if ('json' in answer) return validate(answer.json, value, req);
  if ('created' in answer) return readCreated(answer.created, value, req);
  return undefined;
}

export async function createRecord<T extends ApiRecord = ApiRecord>(
  c: CallContext,
  operationId: string,
  input: CallInput = {},
): Promise<Created<T>> {
  const op = operation(c, operationId);
  if (op.method === 'GET')
    throw new InvalidArgumentError('operationId', `an operation that creates (${op.id} reads)`);
  const data = 'created' in op.answer ? op.answer.created : recordSchema;
  return jsonExchange(c, op, input, (value, req) => readCreated<T>(data, value, req));
}

/** Any JSON operation of the catalog by id, its answer as the service sent it (tools and tests). */
export async function callOperation<T = unknown>(
  c: CallContext,
  operationId: string,
  input: CallInput = {},
): Promise<T> {
  const op = operation(c, operationId);
  if (op.kind === 'binary')
    throw new InvalidArgumentError('operationId', `a JSON operation (${op.id} is a file: use download)`);
  return jsonExchange(c, op, input, (value) => value as T);
}

/** Any operation of the catalog by id, its answer read as its row says (the typed methods' one path). */
export async function invoke(c: CallContext, operationId: string, input: CallInput = {}): Promise<unknown> {
  const op = operation(c, operationId);
  if ('file' in op.answer) return download(c, operationId, input);
  return jsonExchange(c, op, input, (value, req) => readAnswer(op, value, req));
}

/** A file answer handed to the caller as a stream, or "not ready yet" (204). */
async function readFile(res: RawResponse): Promise<Download | NotReady> {
  if (res.status === 204) {
    await discard(res);
    return { notReady: true };
  }
  // The deadline covered the wait for headers; the stream is bounded by the idle body timeout.
  res.done();
  const length = header(res, 'content-length');
  const contentLength = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
  return {
    body: res.body,
    contentType: header(res, 'content-type') ?? 'application/octet-stream',
    ...(contentLength !== undefined ? { contentLength } : {}),
  };
}

export async function download(
  c: CallContext,
  operationId: string,
  input: CallInput = {},
): Promise<Download | NotReady> {
  const op = operation(c, operationId);
  if (op.kind !== 'binary') throw new InvalidArgumentError('operationId', `a file export (${op.id} is not)`);
  const query = { ...input.query };
  if (op.id.endsWith('.pdf') && query.Language === undefined) query.Language = 'Current';
  return exchange<Download | NotReady>(c.exchange, {
    operationId: op.id,
    kind: op.kind,
    method: op.method,
    url: urlFor(c, op, { ...input, query }),
    headers: {
      Accept: op.id.endsWith('.pdf') ? 'application/pdf' : 'application/xml, application/octet-stream, */*',
    },
    signal: input.signal,
    auth: c.auth,
    consume: readFile,
  });
}
