/**
 * Conformance (d): the client parses what the real service may answer. For every JSON operation of
 * the cz catalog a payload is generated from the OpenAPI's response schema in three forms (every
 * field set; every nullable field null; unknown fields added on every object), served by a local
 * HTTP server, and read through the client's typed method for that operation (the one the catalog
 * names), which parses it with the operation's answer schema.
 */
import { describe, expect, it } from 'vitest';
import { createAccountingClient } from '#functions/accounting/client.js';
import { findCollection } from '#functions/accounting/collections.js';
import { type OperationSpec, operationsFor } from '#functions/accounting/endpoints.js';
import { createManualClock } from '#functions/shared/clock.js';
import { apiKeyConfig } from '../fakes/accounting-config.js';
import { useFakeServer } from '../fakes/accounting-server.js';
import { loadOpenApi } from './openapi.js';
import { type SampleMode, sample } from './samples.js';

const api = loadOpenApi();
const ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const modes: SampleMode[] = ['full', 'nulls', 'unknown'];
const jsonOps = operationsFor('cz').filter((op) => op.kind !== 'binary');
const successOf = (op: OperationSpec) => (op.method === 'POST' && op.kind !== 'read' ? 201 : 200);
const concrete = (op: OperationSpec) => op.path.replace(/\{(\w+)\}/g, ID);
const params = (op: OperationSpec) =>
  Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1] as string, ID]));

describe('conformance (d): the client parses every response schema', () => {
  const server = useFakeServer();
  const client = () =>
    createAccountingClient(apiKeyConfig(server.url, { variant: 'cz', maxAttempts: 1 }), {
      clock: createManualClock({ autoAdvance: true }),
    });

  it('covers every JSON operation of the OpenAPI', () => {
    expect(jsonOps.length).toBe(87 - 10); // 8 PDF and 2 ISDOC exports answer files
  });

  it.each(jsonOps.flatMap((op) => modes.map((mode) => [op.id, mode, op] as const)))(
    '%s (%s)',
    async (_id, mode, op) => {
      const status = successOf(op);
      const payload = sample(api.responseSchema(op.method, op.path, status, { exact: true }), mode);
      if (mode !== 'unknown') {
        expect(api.validateResponse(op.method, op.path, status, payload)).toMatchObject({ valid: true });
      }
      // Serialised here: a bare JSON string (an order status) must go out quoted.
      server.route(op.method, concrete(op), {
        status,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(payload),
      });
      const c = client();
      const body =
        op.method === 'POST' && op.kind !== 'transfer'
          ? sample(api.requestSchema(op.method, op.path, { exact: true }), 'full')
          : undefined;
      const collection = op.collection ? findCollection(op.collection, 'cz') : undefined;
      if (op.id.endsWith('.list') && collection) {
        const first = await c
          .listPages(collection.name as never, { pageSize: 1000 })
          [Symbol.asyncIterator]()
          .next();
        expect(first.value?.items).toEqual((payload as { Items: unknown[] }).Items);
      } else if (op.id.endsWith('.get') && collection) {
        expect(await c.get(collection.name as never, ID)).toEqual(payload);
      } else {
        // The typed method the catalog names for the operation, with its collection and parameters.
        const method = c[op.call as keyof typeof c] as unknown as (input: object) => Promise<unknown>;
        expect(typeof method).toBe('function');
        const input = {
          collection: op.id.split('.')[0],
          ...params(op),
          ...(op.paged ? { query: { PageSize: 100, PageNumber: 1 } } : {}),
          ...(body !== undefined ? { body } : {}),
        };
        const answer = await method(input);
        if ('created' in op.answer) {
          const created = answer as { data: unknown; warnings: unknown[] };
          const data = (payload as { Data: unknown }).Data;
          expect(created.data).toEqual(data);
          expect(created.warnings).toHaveLength((payload as { Warnings: unknown[] }).Warnings.length);
        } else if (Array.isArray(answer) && !Array.isArray(payload)) {
          // The price-list queries by id: one object in the OpenAPI, a list as the client gives it.
          expect(answer).toEqual([payload]);
        } else {
          expect(answer).toEqual(payload);
        }
      }
    },
  );
});
