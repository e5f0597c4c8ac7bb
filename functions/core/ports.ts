/**
 * The ports core needs. Core receives implementations of these; it never imports an
 * AWS SDK, `process.env` or the global clock. Adapters live in `functions/adapters/`.
 */
import type { Readable } from 'node:stream';

export type { Clock } from '../shared/clock.js';
export type { Logger } from '../shared/logger.js';

/**
 * The detail-types of the event catalog, as keys. Empty here: the catalog (`core/event-catalog.ts`,
 * composed above the actions and the intake) fills it in by declaration merging, so the ports name
 * every detail-type without importing the layers that declare them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the event catalog (declaration merging)
export interface CatalogDetailTypes {}

/** A detail-type of the event catalog. */
export type CatalogDetailType = keyof CatalogDetailTypes & string;

/** One event for the bus (EventBridge PutEvents entry shape, without the bus name). */
export interface BusEvent {
  source: string;
  /** One of the catalog's: a mistyped detail-type does not compile. */
  detailType: CatalogDetailType;
  /** The JSON-serialisable detail (an envelope of the event catalog). */
  detail: unknown;
  time?: Date;
  resources?: string[];
}

/**
 * Publishes events. Resolves only when every entry was accepted by the bus;
 * throws `PublishError` (core/errors) when some could not be, after the adapter's own retries.
 */
export interface EventPublisher {
  publish(events: readonly BusEvent[]): Promise<void>;
}

/** A stored value with its version, for optimistic concurrency. */
export interface Versioned<T> {
  value: T;
  version: number;
}

/**
 * Checkpoints of the poller, one per key (e.g. `<connection>#<collection>`).
 * `put` writes only when the stored version still equals `expectedVersion`
 * (`undefined` = must not exist yet) and returns the new version; otherwise it throws
 * `CheckpointConflictError` (core/errors).
 */
export interface CheckpointStore<T = unknown> {
  get(key: string): Promise<Versioned<T> | undefined>;
  put(key: string, value: T, expectedVersion: number | undefined): Promise<number>;
}

export interface PutObjectInput {
  key: string;
  body: Readable | Uint8Array | string;
  contentType: string;
  contentLength?: number;
  /** Base64 SHA-256 of the body, checked by the store when given. */
  checksumSha256?: string;
  metadata?: Record<string, string>;
  /** Write only if no object exists under the key (S3 `If-None-Match: *`). */
  ifNoneMatch?: boolean;
}

export interface ObjectInfo {
  key: string;
  size: number;
  contentType?: string;
  checksumSha256?: string;
  metadata: Record<string, string>;
  lastModified?: Date;
}

/** Object storage (S3 or an S3-compatible server). */
export interface ObjectStore {
  /** Throws `ObjectExistsError` (core/errors) when `ifNoneMatch` is set and the key exists. */
  put(input: PutObjectInput): Promise<void>;
  head(key: string): Promise<ObjectInfo | undefined>;
  get(key: string): Promise<Readable | undefined>;
  list(prefix: string): AsyncIterable<ObjectInfo>;
}

/** Where credentials come from (environment, `.env`, Secrets Manager). */
export interface SecretSource {
  get(): Promise<Record<string, string>>;
  /** Reads the secret again, bypassing any cache (after the service refused the credentials). */
  refresh?(): Promise<Record<string, string>>;
}
