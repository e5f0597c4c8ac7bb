/**
 * Values generated from a converted OpenAPI schema (see openapi.ts), for conformance tests:
 * - `full`: every property set, with a value its schema accepts;
 * - `nulls`: every nullable property null (the others as in `full`);
 * - `unknown`: `full` plus a property no schema has, on every object.
 */
export type SampleMode = 'full' | 'nulls' | 'unknown';

type Schema = {
  type?: string | string[];
  anyOf?: Schema[];
  enum?: unknown[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  additionalProperties?: unknown;
};

export const UNKNOWN_FIELD = 'FieldFromANewerVersion';

const isNullable = (s: Schema) =>
  (Array.isArray(s.type) && s.type.includes('null')) ||
  (s.anyOf ?? []).some((a) => a.type === 'null') ||
  (s.enum ?? []).includes(null);

export function sample(schema: object, mode: SampleMode): unknown {
  let guid = 0;
  const nextGuid = () => {
    guid += 1;
    return `00000000-0000-4000-8000-${guid.toString(16).padStart(12, '0')}`;
  };
  const gen = (s: Schema, asProperty: boolean): unknown => {
    if (asProperty && mode === 'nulls' && isNullable(s)) return null;
    if (s.anyOf) return gen(s.anyOf.find((a) => a.type !== 'null') ?? {}, false);
    if (s.enum) return s.enum.find((v) => v !== null);
    const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
    switch (type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const [name, prop] of Object.entries(s.properties ?? {})) out[name] = gen(prop, true);
        if (mode === 'unknown') out[UNKNOWN_FIELD] = { Nested: [1, 'two'] };
        return out;
      }
      case 'array':
        return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => gen(s.items ?? {}, false));
      case 'string':
        if (s.format === 'date-time') return '2026-03-04T05:06:07Z';
        if (s.format === 'guid' || s.format === 'uuid') return nextGuid();
        return 'x'.repeat(Math.min(Math.max(s.minLength ?? 0, 4), s.maxLength ?? 4));
      case 'integer':
      case 'number': {
        const low = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? 1);
        const value = Math.min(Math.max(low, 1), s.maximum ?? Number.MAX_SAFE_INTEGER);
        return type === 'number' && value === 1 ? 1.5 : value;
      }
      case 'boolean':
        return true;
      default:
        return mode === 'unknown' ? { Any: true } : 'any';
    }
  };
  return gen(schema as Schema, false);
}
