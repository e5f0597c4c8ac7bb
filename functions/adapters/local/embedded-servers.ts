/**
 * Embedded, wire-compatible stand-ins for DynamoDB (dynalite) and S3 (s3rver), bound to
 * 127.0.0.1 on an ephemeral port. The local runtime keeps their data under a directory
 * (e.g. `.local/`); tests use a temporary directory and in-memory tables.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import {
  BucketAlreadyExists,
  BucketAlreadyOwnedByYou,
  CreateBucketCommand,
  HeadBucketCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { CONNECTION_REGISTRY_TABLE_KEY } from '../../core/connections/registry.js';

/** The region every embedded client uses. */
export const EMBEDDED_REGION = 'us-east-1';
/** s3rver accepts only these credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
/** dynalite accepts any credentials; fixed ones keep the SDK from looking for real ones. */
export const DYNALITE_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export interface EmbeddedServersOptions {
  /** LevelDB directory for dynalite; tables live in memory when omitted. */
  dynamoDbPath?: string;
  /** Directory for s3rver's objects; a fresh temporary directory (removed on close) when omitted. */
  s3Directory?: string;
}

export interface EmbeddedServers {
  /** `http://127.0.0.1:<port>` of dynalite. */
  dynamoDbEndpoint: string;
  /** `http://127.0.0.1:<port>` of s3rver (path-style). */
  s3Endpoint: string;
  region: string;
  dynamoDb: DynamoDBClient;
  s3: S3Client;
  /** Directory s3rver writes to. */
  s3Directory: string;
  /** Destroys the clients, stops both servers, removes a temporary s3 directory. Idempotent. */
  close(): Promise<void>;
}

/** A DynamoDB client configured for a dynalite endpoint. */
export function createDynaliteClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: EMBEDDED_REGION,
    credentials: DYNALITE_CREDENTIALS,
    maxAttempts: 3,
  });
}

/** An S3 client configured for an s3rver endpoint (path-style, checksums only when required). */
export function createS3rverClient(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: EMBEDDED_REGION,
    credentials: S3RVER_CREDENTIALS,
    forcePathStyle: true,
    // s3rver predates flexible checksums: no aws-chunked trailers, no response checksum validation.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

function listen(server: Server): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** How long a closing server waits for a request in flight before it cuts the connection. */
const STUCK_REQUEST_MS = 30_000;

/**
 * Closes a server only once its requests in flight have answered. dynalite closes its database when
 * its server has closed: a connection cut while its request still runs leaves that request to meet
 * a closed store (`Database is closed`, raised where nobody awaits it). So nothing is cut: idle
 * keep-alive sockets are closed now and each busy one as soon as its request has answered; only a
 * request still running after `STUCK_REQUEST_MS` is cut.
 */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    const closeIdle = () => server.closeIdleConnections();
    server.on('request', (_request, response) => response.once('finish', () => setImmediate(closeIdle)));
    for (const response of busy.get(server) ?? []) response.once('finish', () => setImmediate(closeIdle));
    const force = setTimeout(() => server.closeAllConnections(), STUCK_REQUEST_MS);
    force.unref();
    server.close((error) => {
      clearTimeout(force);
      if (error) reject(error);
      else resolve();
    });
    closeIdle();
  });
}

/** The responses each server has not finished yet, so a close can wait for them. */
const busy = new WeakMap<Server, Set<ServerResponse>>();

function trackRequests(server: Server): void {
  const open = new Set<ServerResponse>();
  busy.set(server, open);
  server.on('request', (_request, response: ServerResponse) => {
    open.add(response);
    response.once('close', () => open.delete(response));
  });
}

/** Starts dynalite and s3rver on 127.0.0.1, port 0, and returns endpoints and ready clients. */
export async function startEmbeddedServers(options: EmbeddedServersOptions = {}): Promise<EmbeddedServers> {
  if (options.dynamoDbPath !== undefined) await mkdir(options.dynamoDbPath, { recursive: true });
  const dynamoServer = dynalite({
    ...(options.dynamoDbPath !== undefined ? { path: options.dynamoDbPath } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  trackRequests(dynamoServer);
  const dynamoAddress = await listen(dynamoServer);

  const temporaryS3 = options.s3Directory === undefined;
  const s3Directory = options.s3Directory ?? (await mkdtemp(join(tmpdir(), 'accounting-events-s3-')));
  await mkdir(s3Directory, { recursive: true });
  let s3rver: S3rver;
  let s3Address: AddressInfo;
  try {
    s3rver = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: s3Directory,
      vhostBuckets: false,
    });
    s3Address = await s3rver.run();
  } catch (error) {
    await closeServer(dynamoServer);
    throw error;
  }

  const dynamoDbEndpoint = `http://127.0.0.1:${dynamoAddress.port}`;
  const s3Endpoint = `http://127.0.0.1:${s3Address.port}`;
  const dynamoDb = createDynaliteClient(dynamoDbEndpoint);
  const s3 = createS3rverClient(s3Endpoint);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      dynamoDb.destroy();
      s3.destroy();
      await Promise.allSettled([closeServer(dynamoServer), s3rver.close()]);
      if (temporaryS3) await rm(s3Directory, { recursive: true, force: true });
    })();
    return closing;
  };

  return { dynamoDbEndpoint, s3Endpoint, region: EMBEDDED_REGION, dynamoDb, s3, s3Directory, close };
}

async function createTable(client: DynamoDBClient, tableName: string, keyName: string): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: keyName, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: keyName, KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  // dynalite reports CREATING briefly even with createTableMs 0.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table '${tableName}' did not become ACTIVE`);
}

/** Creates (if missing) a checkpoint table: partition key `pk` (string). */
export function createCheckpointTable(client: DynamoDBClient, tableName: string): Promise<void> {
  return createTable(client, tableName, 'pk');
}

/** Creates (if missing) an idempotency table as Powertools expects: partition key `id` (string). */
export function createIdempotencyTable(client: DynamoDBClient, tableName: string): Promise<void> {
  return createTable(client, tableName, 'id');
}

/** Creates (if missing) a connection registry table: partition key `name` (string). */
export function createConnectionRegistryTable(client: DynamoDBClient, tableName: string): Promise<void> {
  return createTable(client, tableName, CONNECTION_REGISTRY_TABLE_KEY.partitionKey.name);
}

/** Creates a bucket unless it exists already. */
export async function createBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch {
    // not there yet
  }
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    // There after all (a HEAD that failed for another reason, e.g. a start right after a kill -9).
    if (error instanceof BucketAlreadyExists || error instanceof BucketAlreadyOwnedByYou) return;
    throw error;
  }
}
