/**
 * `ObjectStore` on an S3 bucket (or an S3-compatible server). Bodies of known length go up in
 * one `PutObject`; streams of unknown length are read up to one part: if they end there, one
 * `PutObject` with the exact length, otherwise a multipart upload (`@aws-sdk/lib-storage`)
 * with a SHA-256 checksum per part. `ifNoneMatch` sends `If-None-Match: *`; S3 answers 412 when
 * the key exists, which becomes `ObjectExistsError`.
 *
 * When a whole-object SHA-256 is given it is sent as `ChecksumSHA256` (verified by S3 on single
 * uploads) and also kept in the user metadata under `checksum-sha256`, so `head` can report it
 * from servers that do not store checksums (s3rver) and for multipart objects.
 */
import { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ChecksumMismatchError, ObjectExistsError } from '#functions/core/errors.js';
import type { ObjectInfo, ObjectStore, PutObjectInput } from '#functions/core/ports.js';

export interface S3ObjectStoreOptions {
  client: S3Client;
  bucket: string;
  /** Part size for streams of unknown length; default 8 MiB (S3's minimum is 5 MiB). */
  partSizeBytes?: number;
  /** Keys per `ListObjectsV2` page; default S3's 1000. */
  listPageSize?: number;
  /**
   * `ListObjectsV2` (default) or the original `ListObjects`. s3rver fails truncated V2 pages
   * on Node 20 (its continuation tokens need the DES cipher), so the local runtime uses 1.
   */
  listApiVersion?: 1 | 2;
}

/** User-metadata key that mirrors the object's SHA-256 (base64). */
export const CHECKSUM_METADATA_KEY = 'checksum-sha256';

function isPreconditionFailed(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'PreconditionFailed' || error.$metadata.httpStatusCode === 412)
  );
}

function isBadDigest(error: unknown): boolean {
  return (
    error instanceof S3ServiceException && (error.name === 'BadDigest' || error.name === 'InvalidDigest')
  );
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof NotFound ||
    error instanceof NoSuchKey ||
    (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)
  );
}

/** Reads chunks until more than `limit` bytes were seen or the stream ended. */
async function readHead(
  iterator: AsyncIterator<unknown>,
  limit: number,
): Promise<{ chunks: Buffer[]; size: number; ended: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  while (size <= limit) {
    const next = await iterator.next();
    if (next.done) return { chunks, size, ended: true };
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array | string);
    chunks.push(chunk);
    size += chunk.length;
  }
  return { chunks, size, ended: false };
}

function rest(chunks: Buffer[], iterator: AsyncIterator<unknown>): Readable {
  return Readable.from(
    (async function* () {
      yield* chunks;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    })(),
  );
}

const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

async function upload(
  o: S3ObjectStoreOptions,
  input: PutObjectInput,
  base: PutObjectCommandInput,
): Promise<void> {
  const { body } = input;
  if (!(body instanceof Readable) || input.contentLength !== undefined) {
    const length =
      input.contentLength ??
      (typeof body === 'string' ? Buffer.byteLength(body) : (body as Uint8Array).length);
    await o.client.send(new PutObjectCommand({ ...base, Body: body, ContentLength: length }));
    return;
  }
  const partSize = o.partSizeBytes ?? DEFAULT_PART_SIZE;
  const iterator = body[Symbol.asyncIterator]();
  const head = await readHead(iterator, partSize);
  if (head.ended) {
    const whole = Buffer.concat(head.chunks, head.size);
    await o.client.send(new PutObjectCommand({ ...base, Body: whole, ContentLength: whole.length }));
    return;
  }
  // Multipart: a whole-object SHA-256 cannot be verified by S3 here; each part carries its own.
  const { ChecksumSHA256: _wholeObject, ...params } = base;
  await new Upload({
    client: o.client,
    partSize,
    leavePartsOnError: false,
    params: { ...params, Body: rest(head.chunks, iterator), ChecksumAlgorithm: 'SHA256' },
  }).done();
}

async function putObject(o: S3ObjectStoreOptions, input: PutObjectInput): Promise<void> {
  const metadata = { ...input.metadata };
  if (input.checksumSha256 !== undefined) metadata[CHECKSUM_METADATA_KEY] = input.checksumSha256;
  const base: PutObjectCommandInput = {
    Bucket: o.bucket,
    Key: input.key,
    ContentType: input.contentType,
    Metadata: metadata,
    ...(input.checksumSha256 !== undefined ? { ChecksumSHA256: input.checksumSha256 } : {}),
    ...(input.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
  };
  try {
    await upload(o, input, base);
  } catch (error) {
    if (isPreconditionFailed(error)) throw new ObjectExistsError(input.key, { cause: error });
    if (isBadDigest(error)) throw new ChecksumMismatchError(input.key, { cause: error });
    throw error;
  }
}

async function headObject(o: S3ObjectStoreOptions, key: string): Promise<ObjectInfo | undefined> {
  try {
    const out = await o.client.send(
      new HeadObjectCommand({ Bucket: o.bucket, Key: key, ChecksumMode: 'ENABLED' }),
    );
    const { [CHECKSUM_METADATA_KEY]: mirrored, ...metadata } = out.Metadata ?? {};
    const checksum = out.ChecksumSHA256 ?? mirrored;
    return {
      key,
      size: out.ContentLength ?? 0,
      metadata,
      ...(out.ContentType !== undefined ? { contentType: out.ContentType } : {}),
      ...(checksum !== undefined ? { checksumSha256: checksum } : {}),
      ...(out.LastModified !== undefined ? { lastModified: out.LastModified } : {}),
    };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function getObject(o: S3ObjectStoreOptions, key: string): Promise<Readable | undefined> {
  try {
    const out = await o.client.send(new GetObjectCommand({ Bucket: o.bucket, Key: key }));
    if (out.Body === undefined) return Readable.from([]);
    return out.Body instanceof Readable
      ? out.Body
      : Readable.fromWeb(out.Body.transformToWebStream() as never);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** One page of keys after `startAfter`, with `ListObjects` or `ListObjectsV2`. */
function listPage(o: S3ObjectStoreOptions, prefix: string, startAfter: string | undefined) {
  const common = {
    Bucket: o.bucket,
    Prefix: prefix,
    ...(o.listPageSize !== undefined ? { MaxKeys: o.listPageSize } : {}),
  };
  return o.listApiVersion === 1
    ? o.client.send(
        new ListObjectsCommand({ ...common, ...(startAfter !== undefined ? { Marker: startAfter } : {}) }),
      )
    : o.client.send(
        new ListObjectsV2Command({
          ...common,
          ...(startAfter !== undefined ? { StartAfter: startAfter } : {}),
        }),
      );
}

async function* listObjects(o: S3ObjectStoreOptions, prefix: string): AsyncIterable<ObjectInfo> {
  // Pages continue after the last key seen (`StartAfter` / `Marker`) rather than with
  // continuation tokens: equivalent without a delimiter, and it works on every S3 look-alike.
  let startAfter: string | undefined;
  for (;;) {
    const page = await listPage(o, prefix, startAfter);
    for (const object of page.Contents ?? []) {
      if (object.Key === undefined) continue;
      startAfter = object.Key;
      yield {
        key: object.Key,
        size: object.Size ?? 0,
        metadata: {},
        ...(object.LastModified !== undefined ? { lastModified: object.LastModified } : {}),
      };
    }
    if (!page.IsTruncated || page.Contents === undefined || page.Contents.length === 0) return;
  }
}

export function createS3ObjectStore(options: S3ObjectStoreOptions): ObjectStore {
  return {
    put: (input) => putObject(options, input),
    head: (key) => headObject(options, key),
    get: (key) => getObject(options, key),
    list: (prefix) => listObjects(options, prefix),
  };
}
