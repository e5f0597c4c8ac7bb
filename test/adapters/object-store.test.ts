import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import {
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3ObjectStore } from '#functions/adapters/aws/s3-object-store.js';
import { createMemoryObjectStore } from '#functions/adapters/local/memory-object-store.js';
import { ChecksumMismatchError, ObjectExistsError } from '#functions/core/errors.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { describeObjectStoreContract } from './object-store-contract.js';

let servers: TestServers;
let bucket: string;
beforeAll(async () => {
  servers = await startTestServers();
  bucket = await servers.bucket('archive');
});
afterAll(() => servers.close());

describeObjectStoreContract('memory', () => createMemoryObjectStore(), { enforcesIfNoneMatch: true });
// Small pages so pagination runs against a real wire protocol (V1: s3rver cannot truncate V2 pages).
describeObjectStoreContract(
  'S3 (s3rver)',
  () => createS3ObjectStore({ client: servers.s3, bucket, listPageSize: 3, listApiVersion: 1 }),
  { enforcesIfNoneMatch: false },
);

describeObjectStoreContract(
  'S3 (s3rver, ListObjectsV2)',
  () => createS3ObjectStore({ client: servers.s3, bucket }),
  {
    enforcesIfNoneMatch: false,
  },
);

describe('S3 object store against s3rver', () => {
  it('uploads a stream larger than one part as a multipart upload', async () => {
    const store = createS3ObjectStore({ client: servers.s3, bucket, partSizeBytes: 5 * 1024 * 1024 });
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const body = Readable.from(Array.from({ length: 6 }, () => chunk));
    await store.put({ key: 'big/six-mib.bin', body, contentType: 'application/octet-stream' });
    expect((await store.head('big/six-mib.bin'))?.size).toBe(6 * 1024 * 1024);
  });

  it('keeps the SHA-256 in metadata so head reports it from servers that do not store checksums', async () => {
    const store = createS3ObjectStore({ client: servers.s3, bucket });
    const checksum = createHash('sha256').update('doc').digest('base64');
    await store.put({ key: 'sum/doc', body: 'doc', contentType: 'text/plain', checksumSha256: checksum });
    const raw = await servers.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'sum/doc' }));
    expect(raw.Metadata?.['checksum-sha256']).toBe(checksum);
    const info = await store.head('sum/doc');
    expect(info?.checksumSha256).toBe(checksum);
    expect(info?.metadata).toEqual({});
    expect(await text((await store.get('sum/doc')) as Readable)).toBe('doc');
  });
});

function s3Error(name: string, status: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: 'client',
    $metadata: { httpStatusCode: status },
    message: name,
  });
}

describe('S3 object store against the S3 API (mocked)', () => {
  it('sends If-None-Match: * with the checksum, content type and metadata', async () => {
    const s3 = mockClient(S3Client);
    s3.on(PutObjectCommand).resolves({});
    const store = createS3ObjectStore({ client: new S3Client({ region: 'us-east-1' }), bucket: 'b' });
    await store.put({
      key: 'k',
      body: 'x',
      contentType: 'application/xml',
      checksumSha256: 'c2hh',
      metadata: { id: '1' },
      ifNoneMatch: true,
    });
    expect(s3.commandCalls(PutObjectCommand)[0]?.args[0].input).toMatchObject({
      Bucket: 'b',
      Key: 'k',
      IfNoneMatch: '*',
      ChecksumSHA256: 'c2hh',
      ContentType: 'application/xml',
      ContentLength: 1,
      Metadata: { id: '1', 'checksum-sha256': 'c2hh' },
    });
    s3.restore();
  });

  it('turns 412 PreconditionFailed into ObjectExistsError', async () => {
    const s3 = mockClient(S3Client);
    s3.on(PutObjectCommand).rejects(s3Error('PreconditionFailed', 412));
    const store = createS3ObjectStore({ client: new S3Client({ region: 'us-east-1' }), bucket: 'b' });
    const error = await store
      .put({
        key: 'isdoc/x',
        body: Readable.from([Buffer.from('x')]),
        contentType: 'text/plain',
        ifNoneMatch: true,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObjectExistsError);
    expect((error as ObjectExistsError).key).toBe('isdoc/x');
    expect((error as Error).cause).toBeInstanceOf(S3ServiceException);
    s3.restore();
  });

  it('turns BadDigest into ChecksumMismatchError and passes other errors through', async () => {
    const s3 = mockClient(S3Client);
    s3.on(PutObjectCommand, { Key: 'bad' }).rejects(s3Error('BadDigest', 400));
    s3.on(PutObjectCommand, { Key: 'denied' }).rejects(s3Error('AccessDenied', 403));
    const store = createS3ObjectStore({ client: new S3Client({ region: 'us-east-1' }), bucket: 'b' });
    await expect(store.put({ key: 'bad', body: 'x', contentType: 'text/plain' })).rejects.toBeInstanceOf(
      ChecksumMismatchError,
    );
    const denied = await store
      .put({ key: 'denied', body: 'x', contentType: 'text/plain' })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(S3ServiceException);
    expect((denied as Error).name).toBe('AccessDenied');
    s3.restore();
  });

  it('asks for the checksum on head and reports the stored one', async () => {
    const s3 = mockClient(S3Client);
    s3.on(HeadObjectCommand).resolves({
      ContentLength: 3,
      ContentType: 'text/plain',
      ChecksumSHA256: 'real',
      Metadata: { id: '9', 'checksum-sha256': 'mirrored' },
    });
    const store = createS3ObjectStore({ client: new S3Client({ region: 'us-east-1' }), bucket: 'b' });
    expect(await store.head('k')).toEqual({
      key: 'k',
      size: 3,
      contentType: 'text/plain',
      checksumSha256: 'real',
      metadata: { id: '9' },
    });
    expect(s3.commandCalls(HeadObjectCommand)[0]?.args[0].input).toMatchObject({ ChecksumMode: 'ENABLED' });
    s3.restore();
  });

  it('pages through a truncated listing with StartAfter', async () => {
    const s3 = mockClient(S3Client);
    s3.on(ListObjectsV2Command)
      .resolvesOnce({ Contents: [{ Key: 'p/1', Size: 1 }], IsTruncated: true, NextContinuationToken: 't' })
      .resolvesOnce({ Contents: [{ Key: 'p/2', Size: 2 }], IsTruncated: false });
    const store = createS3ObjectStore({ client: new S3Client({ region: 'us-east-1' }), bucket: 'b' });
    const keys: string[] = [];
    for await (const info of store.list('p/')) keys.push(info.key);
    expect(keys).toEqual(['p/1', 'p/2']);
    expect(s3.commandCalls(ListObjectsV2Command)[1]?.args[0].input).toMatchObject({
      Prefix: 'p/',
      StartAfter: 'p/1',
    });
    s3.restore();
  });
});
