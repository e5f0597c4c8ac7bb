/**
 * The endpoint catalog: every operation of the accounting service, once per national variant.
 *
 * `cz` holds exactly the operations of the vendor's public OpenAPI description of the Czech
 * service, with their real methods and paths. `sk` holds the Slovak contract's operations: where
 * the public OpenAPI has the same operation its real path is used; paths the contract shows are
 * used verbatim. Both are `assumed: false`. The operations only the Slovak contract names follow
 * the service's visible conventions and are marked `assumed: true`; each can be replaced from
 * configuration (`ACCOUNTING_PATH_OVERRIDES`) without a code change.
 *
 * Path templates use `{name}` placeholders, filled (checked, then URL-encoded) by `buildPath`.
 *
 * Each operation names the client's typed method that calls it (`call`) and what it answers
 * (`answer`: the DTO's schema, a created envelope, a file, or nothing shown), so the methods'
 * types (`operation-methods.ts`) and the parsing of every answer follow from this one catalog.
 */
import {
  type CollectionSpec,
  collectionsFor,
  DEFAULT_SERVICE_VARIANT,
  type ServiceVariant,
} from './collections.js';
import { InvalidArgumentError } from './errors.js';
import { type ExplicitOperation, explicitOperations } from './explicit-operations.js';
import type { OperationSpec } from './operation-spec.js';
import { COLLECTION_PARAM_PATTERN, isRecordId, RECORD_ID_EXPECTED } from './record-id.js';
import { listEnvelopeSchema, recordFieldsSchemaFor, recordSchema, recordSchemaFor } from './schemas.js';

export type { AnswerSpec, HttpMethod, OperationKind, OperationSpec } from './operation-spec.js';

function collectionOperations(c: CollectionSpec): OperationSpec[] {
  const assumed = !c.pathShown;
  const ops: OperationSpec[] = [
    {
      id: `${c.name}.list`,
      method: 'GET',
      path: `/v1/${c.name}`,
      kind: 'read',
      call: 'listPages',
      answer: { json: listEnvelopeSchema(recordFieldsSchemaFor(c)) },
      collection: c.name,
      paged: true,
      acceptsAfter: c.acceptsAfter,
      assumed,
      summary: `List ${c.name} (paged${c.acceptsAfter ? ', keyset After' : ', page numbers only'}).`,
    },
  ];
  if (c.getById) {
    ops.push({
      id: `${c.name}.get`,
      method: 'GET',
      path: `/v1/${c.name}/{id}`,
      kind: 'read',
      call: 'get',
      answer: { json: recordSchemaFor(c) },
      collection: c.name,
      assumed,
      summary: `Get one ${c.recordType} by id.`,
    });
  }
  if (c.pdf) {
    ops.push({
      id: `${c.name}.pdf`,
      method: 'GET',
      path: `/v1/${c.name}/{id}/pdf`,
      kind: 'binary',
      call: 'pdf',
      answer: { file: true },
      collection: c.name,
      assumed,
      summary: `Export one ${c.recordType} as PDF (query Language=Current|English).`,
    });
  }
  if (c.isdoc) {
    ops.push({
      id: `${c.name}.isdoc`,
      method: 'GET',
      path: `/v1/${c.name}/{id}/isdoc`,
      kind: 'binary',
      call: 'isdoc',
      answer: { file: true },
      collection: c.name,
      assumed,
      summary: `Export one ${c.recordType} as ISDOC (204 while not ready).`,
    });
  }
  if (c.importable) {
    ops.push({
      id: `${c.name}.create`,
      method: 'POST',
      path: `/v1/${c.name}`,
      kind: 'create',
      call: 'importDocument',
      takesBody: true,
      answer: { created: recordSchema },
      collection: c.name,
      assumed,
      summary: `Import (create) one ${c.recordType}.`,
    });
  }
  return ops;
}

interface Catalog {
  readonly list: readonly OperationSpec[];
  readonly byId: ReadonlyMap<string, OperationSpec>;
}

function catalogOf(variant: ServiceVariant): Catalog {
  const list: OperationSpec[] = [
    ...collectionsFor(variant).flatMap(collectionOperations),
    ...(explicitOperations as readonly ExplicitOperation[])
      .filter((o) => o.variants.includes(variant))
      .map(({ variants: _variants, ...op }) => op),
  ];
  return { list, byId: new Map(list.map((o) => [o.id, o])) };
}

const catalogs: Record<ServiceVariant, Catalog> = { sk: catalogOf('sk'), cz: catalogOf('cz') };

/** Every operation of one variant, in a stable order. */
export function operationsFor(variant: ServiceVariant): readonly OperationSpec[] {
  return catalogs[variant].list;
}

/** Every operation of the default variant (`sk`), in a stable order. */
export const operations: readonly OperationSpec[] = operationsFor(DEFAULT_SERVICE_VARIANT);

export function findOperation(
  id: string,
  variant: ServiceVariant = DEFAULT_SERVICE_VARIANT,
): OperationSpec | undefined {
  return catalogs[variant].byId.get(id);
}

/**
 * Returns the variant's catalog with `overrides` (operation id → path template) applied.
 * Unknown ids (for that variant) throw.
 */
export function resolveOperations(
  variant: ServiceVariant = DEFAULT_SERVICE_VARIANT,
  overrides: Readonly<Record<string, string>> = {},
): Map<string, OperationSpec> {
  const resolved = new Map(catalogs[variant].byId);
  for (const [id, path] of Object.entries(overrides)) {
    const op = resolved.get(id);
    if (!op) throw new Error(`path override names unknown operation '${id}' (variant ${variant})`);
    resolved.set(id, { ...op, path });
  }
  return resolved;
}

/**
 * Fills `{name}` placeholders from `params`. Each value is checked before it is encoded: `{collection}`
 * takes a catalog name, every other placeholder a record id of the service's shape (a GUID), so no
 * value can change which path is requested (`..`, `/`, `%2e`, …). Throws `InvalidArgumentError`
 * naming the parameter, never echoing the value.
 */
export function buildPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) {
      throw new InvalidArgumentError(`params.${name}`, `the path parameter '${name}' of ${template}`);
    }
    if (name === 'collection') {
      if (!COLLECTION_PARAM_PATTERN.test(value)) {
        throw new InvalidArgumentError(`params.${name}`, 'a collection name of the catalog');
      }
    } else if (!isRecordId(value)) {
      throw new InvalidArgumentError(`params.${name}`, RECORD_ID_EXPECTED);
    }
    return encodeURIComponent(value);
  });
}
