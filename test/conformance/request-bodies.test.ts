/**
 * Conformance (c): every request body the client and the actions build validates against the
 * OpenAPI's request schema. The client checks each body against zod schemas generated from the
 * OpenAPI (`request-schemas.ts`) before it leaves; here those schemas are held against the OpenAPI
 * itself: a body the OpenAPI accepts passes them, one it refuses (a property the DTO lacks, a
 * missing required one, a wrong type) fails them too. The bodies the actions build: transfers send
 * none (the OpenAPI's transfers take none); the order intake's body is checked in
 * test/intake/map-order.test.ts; e-mail sending is a Slovak-only operation the OpenAPI lacks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operationsFor } from '#functions/accounting/endpoints.js';
import { requestDtoOf, requestSchemaFor } from '#functions/accounting/request-bodies.js';
import { transferStepsFor } from '#functions/core/actions/transfer-documents/transfer-steps.js';
import { loadOpenApi, OPENAPI_CZ_FILE } from './openapi.js';
import { sample } from './samples.js';

const api = loadOpenApi();
const doc = JSON.parse(readFileSync(OPENAPI_CZ_FILE, 'utf8')) as {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>
  >;
};
const bodyRef = (method: string, path: string) =>
  doc.paths[path]?.[method.toLowerCase()]?.requestBody?.content['application/json']?.schema.$ref
    ?.split('/')
    .at(-1);

const withBody = operationsFor('cz').filter((op) => bodyRef(op.method, op.path) !== undefined);

describe('conformance (c): request bodies', () => {
  it('names, for every cz operation, the DTO its OpenAPI request body references', () => {
    for (const op of operationsFor('cz')) {
      expect({ op: op.id, dto: (requestDtoOf as Readonly<Record<string, string>>)[op.id] }).toEqual({
        op: op.id,
        dto: bodyRef(op.method, op.path),
      });
    }
    expect(withBody.length).toBeGreaterThan(10);
  });

  it('marks as taking a body exactly the cz operations whose OpenAPI takes one', () => {
    for (const op of operationsFor('cz')) {
      expect({ op: op.id, takesBody: op.takesBody === true }).toEqual({
        op: op.id,
        takesBody: bodyRef(op.method, op.path) !== undefined,
      });
    }
  });

  it.each(withBody.map((op) => [op.id, op] as const))(
    '%s: the zod schema agrees with the OpenAPI',
    (_id, op) => {
      const schema = requestSchemaFor('cz', op.id);
      expect(schema).toBeDefined();
      const full = sample(api.requestSchema(op.method, op.path, { exact: true }), 'full');
      expect(api.validateRequest(op.method, op.path, full)).toMatchObject({ valid: true });
      expect(schema?.safeParse(full).success).toBe(true);
      const nulls = sample(api.requestSchema(op.method, op.path, { exact: true }), 'nulls');
      expect(schema?.safeParse(nulls).success).toBe(api.validateRequest(op.method, op.path, nulls).valid);
      const extra = { ...(full as object), PropertyTheDtoLacks: 1 };
      expect(api.validateRequest(op.method, op.path, extra).valid).toBe(false);
      expect(schema?.safeParse(extra).success).toBe(false);
      const minimal = sample(api.requestSchema(op.method, op.path), 'full'); // the document's own `required`
      for (const key of Object.keys(minimal as object)) {
        const { [key]: _dropped, ...without } = minimal as Record<string, unknown>;
        expect({ key, zod: schema?.safeParse(without).success }).toEqual({
          key,
          zod: api.validateRequest(op.method, op.path, without).valid,
        });
      }
    },
  );

  it('sends no body with a transfer, as the OpenAPI’s transfers take none', () => {
    for (const step of transferStepsFor('cz')) {
      const op = operationsFor('cz').find((o) => o.id === step.operationId);
      expect(op).toBeDefined();
      expect(bodyRef(op?.method ?? '', op?.path ?? '')).toBeUndefined();
      expect(requestSchemaFor('cz', step.operationId)).toBeUndefined();
    }
  });
});
