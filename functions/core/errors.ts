/**
 * Errors of core and its ports. Each sets `name`, keeps `cause`, and is branched on with `instanceof`.
 */

/** Some events could not be accepted by the bus after the adapter's retries; nothing after them may be checkpointed. */
export class PublishError extends Error {
  override readonly name = 'PublishError';
  constructor(
    message: string,
    readonly failed: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The checkpoint moved since it was read (another poller advanced it). */
export class CheckpointConflictError extends Error {
  override readonly name = 'CheckpointConflictError';
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`checkpoint '${key}' was changed by another writer`, options);
  }
}

/** A conditional write (`If-None-Match: *`) found an object under the key. */
export class ObjectExistsError extends Error {
  override readonly name = 'ObjectExistsError';
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`an object already exists under '${key}'`, options);
  }
}

/** The store computed a different SHA-256 than the one sent with the object (S3 `BadDigest`). */
export class ChecksumMismatchError extends Error {
  override readonly name = 'ChecksumMismatchError';
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`the SHA-256 checksum of '${key}' does not match its body`, options);
  }
}

/** An event detail does not match the catalog schema of its detail-type (or the type is unknown). */
export class EventValidationError extends Error {
  override readonly name = 'EventValidationError';
  constructor(
    readonly detailType: string,
    readonly issues: string[],
    options?: { cause?: unknown },
  ) {
    super(`event '${detailType}' is invalid: ${issues.join('; ')}`, options);
  }
}

/** A claim-checked record could not be resolved: missing object or checksum mismatch. */
export class RecordRefError extends Error {
  override readonly name = 'RecordRefError';
  constructor(
    readonly key: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`record reference '${key}': ${reason}`, options);
  }
}

/** A record without the fields the poller relies on, or a malformed checkpoint. */
export class SyncDataError extends Error {
  override readonly name = 'SyncDataError';
}
