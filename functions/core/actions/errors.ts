/**
 * Errors of the actions. Each sets `name`, keeps `cause`, and is branched on with `instanceof`.
 */

/** Not done yet, nothing wrong: deliver the event again later (SQS redelivery, local re-queue). */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  constructor(
    readonly reason: string,
    /** A hint for the local runtime; SQS uses the queue's visibility timeout. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(`retry later: ${reason}`, options);
  }
}

/** Another delivery of the same action on the same record holds the idempotency record right now. */
export class ActionInProgressError extends Error {
  override readonly name = 'ActionInProgressError';
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
    /** How long until the other run's in-progress record expires, when the guard knows it. */
    readonly retryAfterMs?: number,
  ) {
    super(`action '${key}' is in progress in another invocation`, options);
  }
}

/** The event is not a valid EventBridge event of the catalog: logged once, dead-lettered, never retried. */
export class InvalidActionEventError extends Error {
  override readonly name = 'InvalidActionEventError';
  constructor(
    readonly detailType: string | undefined,
    readonly issues: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`invalid event${detailType ? ` '${detailType}'` : ''}: ${issues.join('; ')}`, options);
  }
}

/** The ISDOC export is not a valid ISDOC invoice of the document (`issues` name what is wrong). */
export class IsdocInvalidError extends Error {
  override readonly name = 'IsdocInvalidError';
  constructor(
    readonly issues: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`invalid ISDOC: ${issues.join('; ')}`, options);
  }
}

/** The source's current status does not allow the transfer (finished, permanent, rejected …). */
export class NotTransferableError extends Error {
  override readonly name = 'NotTransferableError';
  constructor(
    readonly sourceStatus: string | null,
    options?: { cause?: unknown },
  ) {
    super(`source status ${sourceStatus ?? 'unknown'} is not transferable`, options);
  }
}

/**
 * A change would grow an item of open e-invoice sendings past its safe size (DynamoDB refuses
 * items over 400 KB). Thrown before the request when an intent does not fit, so nothing is sent
 * that could not be tracked; the event is delivered again later, once the tracker has closed some.
 */
export class OpenSendingsFullError extends Error {
  override readonly name = 'OpenSendingsFullError';
  constructor(
    readonly key: string,
    readonly bytes: number,
    readonly limitBytes: number,
    options?: { cause?: unknown },
  ) {
    super(
      `open e-invoice sendings item '${key}' would grow to ${bytes} bytes, over its limit of ${limitBytes}; wait for the tracker to close sendings`,
      options,
    );
  }
}
