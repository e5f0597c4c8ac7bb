/**
 * Embedded, wire-compatible stand-ins for DynamoDB (dynalite) and S3 (s3rver). The local runtime
 * puts them on Unix domain sockets inside its owner-only data directory (`socketDir`): neither
 * checks who calls it (s3rver serves unsigned requests, dynalite checks only the shape of a
 * signature and answers every CORS preflight), so no TCP port may carry them, where any local
 * process or a web page could call them. Without `socketDir` (tests, benchmarks over throwaway
 * data) they listen on 127.0.0.1, ephemeral ports.
 */
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { Agent, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createConnection, type Socket } from 'node:net';
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
import type S3rver from 's3rver';
import { CONNECTION_REGISTRY_TABLE_KEY } from '#functions/core/connections/registry.js';

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
  /**
   * An owner-only directory for the servers' Unix domain sockets (`dynamodb.sock`, `s3.sock`); they
   * listen on no TCP port then. When omitted: 127.0.0.1, ephemeral ports.
   */
  socketDir?: string;
}

export interface EmbeddedServers {
  /** dynalite: `http://127.0.0.1:<port>`, or `unix:<socket path>`. */
  dynamoDbEndpoint: string;
  /** s3rver (path-style): `http://127.0.0.1:<port>`, or `unix:<socket path>`. */
  s3Endpoint: string;
  region: string;
  dynamoDb: DynamoDBClient;
  s3: S3Client;
  /** Directory s3rver writes to. */
  s3Directory: string;
  /** Destroys the clients, stops both servers, removes a temporary s3 directory. Idempotent. */
  close(): Promise<void>;
}

const UNIX = 'unix:';

/** An HTTP agent whose every connection goes to one Unix domain socket. */
class SocketAgent extends Agent {
  constructor(private readonly socketPath: string) {
    super({ keepAlive: true });
  }
  override createConnection(): Socket {
    return createConnection({ path: this.socketPath });
  }
}

/**
 * Where a client sends its requests: an `http://` endpoint as is; for `unix:<path>` a placeholder
 * URL (the `Host` the request names and signs) and an agent that connects to the socket.
 */
function transport(endpoint: string) {
  if (!endpoint.startsWith(UNIX)) return { endpoint };
  const agent = new SocketAgent(endpoint.slice(UNIX.length));
  return { endpoint: 'http://localhost', requestHandler: { httpAgent: agent, httpsAgent: agent } };
}

/** A DynamoDB client configured for a dynalite endpoint (`http://…` or `unix:<socket>`). */
export function createDynaliteClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    ...transport(endpoint),
    region: EMBEDDED_REGION,
    credentials: DYNALITE_CREDENTIALS,
    maxAttempts: 3,
  });
}

/** An S3 client configured for an s3rver endpoint (`http://…` or `unix:<socket>`; path-style, checksums only when required). */
export function createS3rverClient(endpoint: string): S3Client {
  return new S3Client({
    ...transport(endpoint),
    region: EMBEDDED_REGION,
    credentials: S3RVER_CREDENTIALS,
    forcePathStyle: true,
    // s3rver predates flexible checksums: no aws-chunked trailers, no response checksum validation.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

/**
 * Listens on `socketPath` (owner-only: 0600 inside an owner-only directory; a socket a killed run
 * left behind is removed first), or on 127.0.0.1, an ephemeral port. Returns the endpoint.
 */
async function listen(server: Server, socketPath: string | undefined): Promise<string> {
  if (socketPath !== undefined) await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (socketPath !== undefined) server.listen(socketPath, done);
    else server.listen(0, '127.0.0.1', done);
  });
  if (socketPath === undefined) return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await chmod(socketPath, 0o600);
  return `${UNIX}${socketPath}`;
}

/**
 * The longest socket path every platform takes (`sun_path` is 108 bytes on Linux, 104 on macOS
 * and the BSDs, with its terminating NUL).
 */
const MAX_SOCKET_PATH = 103;

/**
 * An owner-only directory for sockets: `<dataDir>/sockets`, or, when a socket's path there would be
 * longer than a socket address takes, a fresh 0700 directory under the system's temporary one.
 * `temporary` says whether it is to be removed after use.
 */
export async function privateSocketDir(dataDir: string): Promise<{ dir: string; temporary: boolean }> {
  const dir = join(dataDir, 'sockets');
  // The longest name used inside: `archive-<pid>-<hex>.sock` (archive reader), about 40 bytes.
  if (Buffer.byteLength(dir) + 48 <= MAX_SOCKET_PATH) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    return { dir, temporary: false };
  }
  return { dir: await mkdtemp(join(tmpdir(), 'ae-')), temporary: true };
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

/**
 * Starts dynalite and s3rver (on `socketDir`'s sockets, or 127.0.0.1, port 0) and returns
 * endpoints and ready clients.
 */
export async function startEmbeddedServers(options: EmbeddedServersOptions = {}): Promise<EmbeddedServers> {
  if (options.dynamoDbPath !== undefined) await mkdir(options.dynamoDbPath, { recursive: true });
  const socket = (name: string) =>
    options.socketDir === undefined ? undefined : join(options.socketDir, `${name}.sock`);
  // Both servers are imported when started (about a second of module loading), so a command that
  // starts neither does not pay for them.
  const { default: dynalite } = await import('dynalite');
  const dynamoServer = dynalite({
    ...(options.dynamoDbPath !== undefined ? { path: options.dynamoDbPath } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  trackRequests(dynamoServer);
  const dynamoDbEndpoint = await listen(dynamoServer, socket('dynamodb'));

  const temporaryS3 = options.s3Directory === undefined;
  const s3Directory = options.s3Directory ?? (await mkdtemp(join(tmpdir(), 'accounting-events-s3-')));
  await mkdir(s3Directory, { recursive: true });
  let s3rver: S3rver;
  let s3Endpoint: string;
  try {
    ({ server: s3rver, endpoint: s3Endpoint } = await startS3rver(s3Directory, socket('s3')));
  } catch (error) {
    await closeServer(dynamoServer);
    throw error;
  }

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

/** s3rver over `directory`, on `socketPath` or 127.0.0.1, an ephemeral port. */
export async function startS3rver(
  directory: string,
  socketPath: string | undefined,
): Promise<{ server: S3rver; endpoint: string }> {
  const { default: S3rverServer } = await import('s3rver');
  const server = new S3rverServer({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
  });
  if (socketPath === undefined) {
    const address = await server.run();
    return { server, endpoint: `http://127.0.0.1:${address.port}` };
  }
  // s3rver's `run` listens on a TCP port; its `listen` takes any `server.listen` arguments.
  await rm(socketPath, { force: true });
  server.httpServer = await server.listen(socketPath);
  await chmod(socketPath, 0o600);
  return { server, endpoint: `${UNIX}${socketPath}` };
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
