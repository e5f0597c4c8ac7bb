/** What a call of the client takes and gives back, shared by the client and its typed methods. */
import type { Readable } from 'node:stream';

export interface ModificationInfo {
  /** Absent on general reference lists of the real service (`ModifiedDate` only). */
  CreatedDate?: string | null;
  CreatedBy?: string;
  ModifiedDate: string;
  ModifiedBy?: string;
}

/** A record as the service returns it: the fields we rely on are typed, every other field passes through. */
export interface ApiRecord {
  Id: string;
  ModificationInfo?: ModificationInfo;
  [field: string]: unknown;
}

export interface CallInput {
  /** Path parameters (`{id}`, `{collection}`, `{sendingId}`). */
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface Warning {
  Code: string;
  Message: string;
}

/** `EntityCreatedResponseDtoOf<X>`: create and transfer results. */
export interface Created<T = ApiRecord> {
  data: T | null;
  warnings: Warning[];
}

export interface Download {
  body: Readable;
  contentType: string;
  contentLength?: number;
}

/** ISDOC export answered `204 No Content`: the document is not ready yet. */
export interface NotReady {
  notReady: true;
}
