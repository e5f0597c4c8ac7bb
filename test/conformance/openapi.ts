/**
 * The service's public OpenAPI (Czech variant, vendored in test/fixtures/openapi) as a validator.
 *
 * Schemas are turned into plain JSON Schema for ajv:
 * - every `$ref` is inlined (the document has no recursive schemas), `oneOf` with a single member
 *   (how the document writes a reference with a description) is merged into its parent;
 * - OpenAPI 3.0 `nullable: true` becomes `null` added to `type` (and to `enum`);
 * - in EXACT mode every object schema that lists `properties` is compiled with all of them
 *   `required` and `additionalProperties: false`. A value then validates only if it carries every
 *   property the DTO has (null where unset) and none it lacks — "no extra, no missing". Responses
 *   are checked this way by default; requests keep the document's own `required` (a request need
 *   not set every field) but still reject properties the DTO lacks.
 *
 * Errors are reported as field paths (`Items[].Address.City`): `extra` (in the value, not in the
 * schema), `missing` (in the schema, absent from the value) and `mismatched` (wrong type, enum or
 * format). Formats: `date-time` and `guid`/`uuid` are checked; numeric formats are informative.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

export const OPENAPI_CZ_FILE = fileURLToPath(new URL('../fixtures/openapi/openapi-cz.json', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface OpenApiOperation {
  readonly method: string;
  readonly path: string;
}

export interface ValidationReport {
  readonly valid: boolean;
  /** Field paths present in the value that the schema does not define. */
  readonly extra: string[];
  /** Field paths the schema defines that the value does not carry. */
  readonly missing: string[];
  /** Field paths whose value has the wrong type, enum member or format (with the reason). */
  readonly mismatched: string[];
}

export interface ValidateOptions {
  /** Every listed property required and no other allowed (default: true for responses, false for requests). */
  readonly exact?: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Annotations the validator does not need; dropping them keeps ajv's strict checks quiet. */
const DROPPED = new Set(['description', 'example', 'x-enumNames', 'nullable', 'readOnly', 'writeOnly']);

export class OpenApiError extends Error {
  override readonly name = 'OpenApiError';
}

export class OpenApi {
  private readonly doc: JsonObject;
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: JsonObject) {
    this.doc = doc;
    this.ajv = new Ajv({
      allErrors: true,
      strict: true,
      formats: {
        'date-time': DATE_TIME,
        guid: GUID,
        uuid: GUID,
        int32: true,
        int64: true,
        double: true,
        float: true,
        decimal: true,
      },
    });
  }

  /** Every operation of the document (method upper-case, path as written, e.g. `/v1/Banks/{id}`). */
  operations(): OpenApiOperation[] {
    const out: OpenApiOperation[] = [];
    for (const [path, item] of Object.entries(asObject(this.doc.paths, 'paths'))) {
      for (const method of METHODS) {
        if (asObject(item, path)[method] !== undefined) out.push({ method: method.toUpperCase(), path });
      }
    }
    return out;
  }

  /** The JSON schema (refs inlined, nullable converted) of an operation's JSON response. */
  responseSchema(
    method: string,
    path: string,
    status: number | string,
    options: ValidateOptions = {},
  ): JsonObject {
    const response = asObject(
      asObject(this.operation(method, path).responses, 'responses')[String(status)],
      'status',
    );
    const schema = jsonSchemaOf(response, `${method} ${path} ${status}`);
    return this.convert(schema, options.exact ?? true);
  }

  /** The JSON schema of an operation's JSON request body. */
  requestSchema(method: string, path: string, options: ValidateOptions = {}): JsonObject {
    const requestBody = this.operation(method, path).requestBody;
    if (requestBody === undefined)
      throw new OpenApiError(`${method.toUpperCase()} ${path} takes no request body`);
    const body = asObject(requestBody, `${method} ${path} requestBody`);
    return this.convert(jsonSchemaOf(body, `${method} ${path} request`), options.exact ?? false);
  }

  validateResponse(
    method: string,
    path: string,
    status: number | string,
    value: unknown,
    options: ValidateOptions = {},
  ): ValidationReport {
    const exact = options.exact ?? true;
    const key = `res ${method.toUpperCase()} ${path} ${status} ${exact}`;
    return this.run(key, () => this.responseSchema(method, path, status, { exact }), value);
  }

  validateRequest(
    method: string,
    path: string,
    value: unknown,
    options: ValidateOptions = {},
  ): ValidationReport {
    const exact = options.exact ?? false;
    const key = `req ${method.toUpperCase()} ${path} ${exact}`;
    return this.run(key, () => this.requestSchema(method, path, { exact }), value);
  }

  /** A named component schema (`#/components/schemas/<name>`), converted. */
  componentSchema(name: string, options: ValidateOptions = {}): JsonObject {
    return this.convert({ $ref: `#/components/schemas/${name}` }, options.exact ?? true);
  }

  validateComponent(name: string, value: unknown, options: ValidateOptions = {}): ValidationReport {
    const exact = options.exact ?? true;
    return this.run(`cmp ${name} ${exact}`, () => this.componentSchema(name, { exact }), value);
  }

  private run(key: string, schema: () => JsonObject, value: unknown): ValidationReport {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema());
      this.compiled.set(key, validate);
    }
    const valid = validate(value) as boolean;
    return reportOf(valid, validate.errors ?? []);
  }

  private operation(method: string, path: string): JsonObject {
    const item = asObject(this.doc.paths, 'paths')[path];
    if (item === undefined) throw new OpenApiError(`OpenAPI has no path ${path}`);
    const op = asObject(item, path)[method.toLowerCase()];
    if (op === undefined) throw new OpenApiError(`OpenAPI has no operation ${method.toUpperCase()} ${path}`);
    return asObject(op, `${method} ${path}`);
  }

  private convert(schema: Json, exact: boolean): JsonObject {
    return asObject(convertNode(schema, this.doc, exact, []), 'schema');
  }
}

let cached: OpenApi | undefined;

/** The vendored Czech OpenAPI, parsed once per process. */
export function loadOpenApi(file: string = OPENAPI_CZ_FILE): OpenApi {
  if (file === OPENAPI_CZ_FILE && cached) return cached;
  const api = new OpenApi(asObject(JSON.parse(readFileSync(file, 'utf8')) as Json, file));
  if (file === OPENAPI_CZ_FILE) cached = api;
  return api;
}

function jsonSchemaOf(holder: JsonObject, where: string): Json {
  const content = asObject(holder.content, `${where} content`);
  const media = content['application/json'] ?? content['text/json'] ?? content['application/*+json'];
  if (media === undefined) throw new OpenApiError(`${where} has no JSON content`);
  const schema = asObject(media, where).schema;
  if (schema === undefined) throw new OpenApiError(`${where} has no schema`);
  return schema;
}

function resolveRef(doc: JsonObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new OpenApiError(`external $ref not supported: ${ref}`);
  let node: Json = doc;
  for (const part of ref.slice(2).split('/')) {
    node = asObject(node, ref)[part.replaceAll('~1', '/').replaceAll('~0', '~')] ?? null;
    if (node === null) throw new OpenApiError(`unresolved $ref ${ref}`);
  }
  return node;
}

function convertNode(node: Json, doc: JsonObject, exact: boolean, refs: string[]): Json {
  if (Array.isArray(node)) return node.map((n) => convertNode(n, doc, exact, refs));
  if (node === null || typeof node !== 'object') return node;
  let source: JsonObject = node;
  const nullable = source.nullable === true;
  if (typeof source.$ref === 'string') {
    const ref = source.$ref;
    if (refs.includes(ref)) throw new OpenApiError(`recursive $ref ${ref}`);
    const { $ref: _ignored, ...rest } = source;
    const target = asObject(convertNode(resolveRef(doc, ref), doc, exact, [...refs, ref]), ref);
    source = { ...target, ...rest };
  }
  const single = source.oneOf ?? source.allOf;
  if (Array.isArray(single) && single.length === 1) {
    const { oneOf: _o, allOf: _a, ...rest } = source;
    source = { ...asObject(convertNode(single[0] ?? null, doc, exact, refs), 'oneOf'), ...rest };
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (DROPPED.has(key)) continue;
    out[key] =
      key === 'properties'
        ? convertProperties(value, doc, exact, refs)
        : convertNode(value, doc, exact, refs);
  }
  if (out.minLength !== undefined && out.type !== 'string') {
    if (out.type === 'array') out.minItems = out.minLength; // the document writes minLength on arrays
    delete out.minLength;
  }
  if (out.exclusiveMinimum === true && typeof out.minimum === 'number') {
    out.exclusiveMinimum = out.minimum; // OpenAPI 3.0 boolean form → JSON Schema number form
    delete out.minimum;
  } else if (typeof out.exclusiveMinimum === 'boolean') {
    delete out.exclusiveMinimum;
  }
  if (exact && out.properties && typeof out.properties === 'object') {
    out.required = Object.keys(out.properties);
    out.additionalProperties = false;
  }
  if (nullable) makeNullable(out);
  return out;
}

function convertProperties(value: Json, doc: JsonObject, exact: boolean, refs: string[]): JsonObject {
  const out: JsonObject = {};
  for (const [name, schema] of Object.entries(asObject(value, 'properties'))) {
    out[name] = convertNode(schema, doc, exact, refs);
  }
  return out;
}

function makeNullable(schema: JsonObject): void {
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.type) && !schema.type.includes('null'))
    schema.type = [...schema.type, 'null'];
  else if (schema.type === undefined && Object.keys(schema).length > 0) {
    const copy = { ...schema };
    for (const key of Object.keys(schema)) delete schema[key];
    schema.anyOf = [copy, { type: 'null' }];
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
}

/** `/Items/0/Address` → `Items[].Address` (array indices collapsed, so a list counts each field once). */
export function fieldPath(instancePath: string, property?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (property !== undefined) parts.push(property);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? '[]' : out === '' ? part : `.${part}`;
  return out === '' ? '(root)' : out;
}

function reportOf(valid: boolean, errors: ErrorObject[]): ValidationReport {
  const extra = new Set<string>();
  const missing = new Set<string>();
  const mismatched = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'additionalProperties') {
      extra.add(fieldPath(error.instancePath, String(error.params.additionalProperty)));
    } else if (error.keyword === 'required') {
      missing.add(fieldPath(error.instancePath, String(error.params.missingProperty)));
    } else if (error.keyword !== 'anyOf') {
      mismatched.add(`${fieldPath(error.instancePath)}: ${error.message ?? error.keyword}`);
    }
  }
  return {
    valid,
    extra: [...extra].sort(),
    missing: [...missing].sort(),
    mismatched: [...mismatched].sort(),
  };
}

function asObject(value: Json | undefined, where: string): JsonObject {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) {
    throw new OpenApiError(`expected an object at ${where}`);
  }
  return value;
}
