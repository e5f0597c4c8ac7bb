/**
 * The EventBridge schema registry accepts JSON Schema draft 4 (or OpenAPI 3); the event catalog
 * writes draft 2020-12 (`z.toJSONSchema`). This rewrites the few keywords that differ, so the
 * registry holds the same constraints: `$defs` → `definitions` (and `$ref`s to them), `const` →
 * a one-value `enum`, numeric `exclusiveMinimum`/`exclusiveMaximum` → `minimum`/`maximum` with the
 * boolean flag, `prefixItems` → an `items` array. Keywords draft 4 does not know are left in place:
 * validators ignore unknown keywords.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const DRAFT4_URI = 'http://json-schema.org/draft-04/schema#';

export function toDraft4(schema: Json): Json {
  const converted = convert(schema);
  if (converted !== null && typeof converted === 'object' && !Array.isArray(converted)) {
    const { $schema: _ignored, $id: _id, ...rest } = converted;
    return { $schema: DRAFT4_URI, ...rest };
  }
  return converted;
}

function convert(node: Json): Json {
  if (Array.isArray(node)) return node.map(convert);
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case '$defs':
        out.definitions = convert(value);
        break;
      case '$ref':
        out.$ref = typeof value === 'string' ? value.replace(/^#\/\$defs\//, '#/definitions/') : value;
        break;
      case 'const':
        if (!('enum' in node)) out.enum = [value];
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'number') {
          out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
          out[key] = true;
        } else {
          out[key] = value;
        }
        break;
      case 'prefixItems':
        out.items = convert(value);
        if ('items' in node && node.items === false) out.additionalItems = false;
        break;
      case 'items':
        if (!('prefixItems' in node)) out.items = convert(value);
        break;
      default:
        out[key] = key === 'properties' || key === 'definitions' ? convertMap(value) : convert(value);
    }
  }
  return out;
}

/** `properties`/`definitions` hold names → schemas; the names themselves are not keywords. */
function convertMap(value: Json): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, convert(schema)]));
}

/**
 * The registry describes whole events: the catalog's detail schema becomes `detail` of an event
 * whose `detail-type` is fixed; its definitions move to the root so their `$ref`s still resolve.
 */
export function eventSchemaOf(detailType: string, detailSchema: Json): Json {
  const detail = toDraft4(detailSchema);
  let definitions: Json | undefined;
  let detailBody: Json = detail;
  if (detail !== null && typeof detail === 'object' && !Array.isArray(detail)) {
    const { $schema: _ignored, definitions: defs, ...rest } = detail;
    definitions = defs;
    detailBody = rest;
  }
  return {
    $schema: DRAFT4_URI,
    title: detailType,
    type: 'object',
    required: ['detail-type', 'source', 'detail'],
    properties: {
      version: { type: 'string' },
      id: { type: 'string' },
      'detail-type': { type: 'string', enum: [detailType] },
      source: { type: 'string' },
      account: { type: 'string' },
      time: { type: 'string', format: 'date-time' },
      region: { type: 'string' },
      resources: { type: 'array', items: { type: 'string' } },
      detail: detailBody,
    },
    ...(definitions === undefined ? {} : { definitions }),
  };
}
