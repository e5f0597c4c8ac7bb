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
