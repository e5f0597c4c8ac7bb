/** What the domain modules of the sandbox share: the store, the clock, randomness, common types. */
import type { ApiRecord } from '../functions/accounting/api.js';
import { notFound } from './http.js';
import { GUID_PATTERN, type Rng } from './random.js';
import type { SandboxState } from './state.js';

export interface Warning {
  Code: string;
  Message: string;
}

export interface Created {
  Data: ApiRecord;
  Warnings: Warning[];
}

export interface DomainContext {
  readonly state: SandboxState;
  rng(): Rng;
  now(): number;
}

/** The latest committed version of a record, or a 404 problem. */
export function requireLatest(ctx: DomainContext, collection: string, id: string): ApiRecord {
  if (!GUID_PATTERN.test(id)) throw notFound();
  const record = ctx.state.getLatest(collection, id);
  if (!record) throw notFound(`${collection} '${id}' does not exist.`);
  return record;
}

/** Today as the service writes a date without time. */
export function today(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 10)}T00:00:00`;
}
