/**
 * `RateLimiter` on a DynamoDB table, shared by every function of a deployment: one item per
 * connection (partition key `pk` = the connection's name) holding its token bucket
 * (`tokens`, `updatedMs`, `pausedUntilMs`) and a `version`. A take reads the bucket, decides with the
 * pure `decideTake`, and writes the result conditional on the version it read (optimistic
 * concurrency): two takers racing on one bucket cannot both spend the same token; the loser reads
 * again. A bucket this container wrote a moment ago is reused without a read. A 429's pause is
 * written the same way and holds back that connection only. Idle items expire by `ttl`.
 */
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { CONNECTION_DEFAULTS, type RateLimit } from '#functions/core/connections/connection-entry.js';
import {
  type BucketState,
  decideTake,
  fullBucket,
  RATE_LIMIT_TABLE_KEY,
  type RateLimiter,
} from '#functions/core/connections/token-bucket.js';
import type { Clock } from '#functions/core/ports.js';

export interface DynamoDbRateLimiterOptions {
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
  limits?: Readonly<Record<string, RateLimit>>;
  defaultLimit?: RateLimit;
  /** How long a bucket this container wrote is trusted without a read; default 2 s. */
  reuseMs?: number;
  /**
   * Tokens taken per write when the bucket has them (default 1): the surplus is spent by the next
   * takes of this container within `reuseMs` without a request, and is lost after. A poller that
   * makes one request per collection saves most writes with a few.
   */
  prefetch?: number;
}

export interface DynamoDbRateLimiter extends RateLimiter {
  /** Sets (or changes) a connection's limit. */
  setLimit(connection: string, limit: RateLimit): void;
  /** Requests made to DynamoDB (reads, writes, refused writes), for measurements. */
  stats(): { reads: number; writes: number; conflicts: number };
}

interface Stored {
  state: BucketState;
  version: number;
  atMs: number;
}

const DAY_SECONDS = 86_400;
const num = (item: Record<string, AttributeValue>, name: string) => Number(item[name]?.N ?? Number.NaN);

function storedOf(item: Record<string, AttributeValue> | undefined, atMs: number): Stored | undefined {
  if (!item) return undefined;
  const state = {
    tokens: num(item, 'tokens'),
    updatedMs: num(item, 'updatedMs'),
    pausedUntilMs: num(item, 'pausedUntilMs'),
  };
  const version = num(item, 'version');
  // A malformed item is treated as a full bucket and overwritten (conditional on what was read).
  if (!Object.values(state).every(Number.isFinite) || !Number.isInteger(version)) return undefined;
  return { state, version, atMs };
}

/** The conditional write of a bucket: on the version read, or on there being none. */
function putBucket(
  tableName: string,
  connection: string,
  state: BucketState,
  version: number,
  previous: Stored | undefined,
  nowMs: number,
): PutItemCommand {
  return new PutItemCommand({
    TableName: tableName,
    Item: {
      [RATE_LIMIT_TABLE_KEY.partitionKey]: { S: connection },
      tokens: { N: String(state.tokens) },
      updatedMs: { N: String(state.updatedMs) },
      pausedUntilMs: { N: String(state.pausedUntilMs) },
      version: { N: String(version) },
      [RATE_LIMIT_TABLE_KEY.ttl]: {
        N: String(Math.ceil(Math.max(nowMs, state.pausedUntilMs) / 1000) + DAY_SECONDS),
      },
    },
    ...(previous
      ? {
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': { N: String(previous.version) } },
        }
      : {
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': RATE_LIMIT_TABLE_KEY.partitionKey },
        }),
  });
}

/** Runs the tasks of one key one after another; a waiting task rejects as soon as its signal aborts. */
function serialized() {
  const turns = new Map<string, Promise<void>>();
  return (key: string, signal: AbortSignal | undefined, task: () => Promise<void>): Promise<void> => {
    const mine = untilTurn(turns.get(key) ?? Promise.resolve(), signal).then(task);
    const settled = mine.catch(() => {});
    turns.set(key, settled);
    void settled.then(() => {
      if (turns.get(key) === settled) turns.delete(key);
    });
    return mine;
  };
}

/** Waits for the previous take of the connection, or rejects when `signal` aborts first. */
function untilTurn(previous: Promise<void>, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (!signal) return previous;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** Reads and conditionally writes buckets; remembers what this container wrote in `recent`. */
function bucketIo(
  options: DynamoDbRateLimiterOptions,
  recent: Map<string, Stored>,
  counts: { reads: number; writes: number; conflicts: number },
) {
  const { client, tableName, clock } = options;
  const reuseMs = options.reuseMs ?? 2_000;
  const key = (connection: string) => ({ [RATE_LIMIT_TABLE_KEY.partitionKey]: { S: connection } });
  const read = async (connection: string): Promise<Stored | undefined> => {
    const cached = recent.get(connection);
    const nowMs = clock.now().getTime();
    if (cached && nowMs - cached.atMs <= reuseMs) return cached;
    counts.reads++;
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: key(connection), ConsistentRead: true }),
    );
    return storedOf(Item, nowMs);
  };

  /** Writes `state` if the bucket is still at `previous`; `false` when another writer came first. */
  const write = async (connection: string, state: BucketState, previous: Stored | undefined) => {
    const nowMs = clock.now().getTime();
    const version = (previous?.version ?? 0) + 1;
    counts.writes++;
    try {
      await client.send(putBucket(tableName, connection, state, version, previous, nowMs));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      counts.conflicts++;
      recent.delete(connection);
      return false;
    }
    recent.set(connection, { state, version, atMs: nowMs });
    return true;
  };

  return { read, write };
}

export function createDynamoDbRateLimiter(options: DynamoDbRateLimiterOptions): DynamoDbRateLimiter {
  const { clock } = options;
  const reuseMs = options.reuseMs ?? 2_000;
  const limits = new Map(Object.entries(options.limits ?? {}));
  const recent = new Map<string, Stored>();
  const counts = { reads: 0, writes: 0, conflicts: 0 };
  const limitOf = (connection: string) =>
    limits.get(connection) ?? options.defaultLimit ?? CONNECTION_DEFAULTS.rateLimit;
  const { read, write } = bucketIo(options, recent, counts);

  const prefetch = Math.max(1, Math.floor(options.prefetch ?? 1));
  const credits = new Map<string, { tokens: number; untilMs: number }>();
  const oneAtATime = serialized();

  /** Takes `tokens` from the bucket (and up to `prefetch` for later takes); resolves when taken. */
  const takeFromBucket = async (connection: string, tokens: number, signal?: AbortSignal) => {
    for (;;) {
      signal?.throwIfAborted();
      const stored = await read(connection);
      const nowMs = clock.now().getTime();
      const limit = limitOf(connection);
      const state = stored?.state ?? fullBucket(limit, nowMs);
      const wanted = Math.min(limit.burst, Math.max(tokens, prefetch));
      const generous = decideTake(state, limit, nowMs, wanted);
      const decision = generous.kind === 'take' ? generous : decideTake(state, limit, nowMs, tokens);
      if (decision.kind === 'take') {
        if (!(await write(connection, decision.next, stored))) continue;
        const surplus = generous.kind === 'take' ? wanted - Math.min(tokens, limit.burst) : 0;
        if (surplus > 0) credits.set(connection, { tokens: surplus, untilMs: nowMs + reuseMs });
        return;
      }
      recent.delete(connection); // after the wait, read what the others left
      await clock.sleep(decision.waitMs, signal);
    }
  };

  return {
    /** Takes of one connection run one at a time in this container (they would only race each other). */
    take: (connection, { tokens = 1, signal } = {}) =>
      oneAtATime(connection, signal, async () => {
        const credit = credits.get(connection);
        if (credit && credit.tokens >= tokens && clock.now().getTime() <= credit.untilMs) {
          credit.tokens -= tokens;
          return;
        }
        credits.delete(connection);
        await takeFromBucket(connection, tokens, signal);
      }),
    async pause(connection, untilMs) {
      credits.delete(connection);
      for (;;) {
        const stored = await read(connection);
        const nowMs = clock.now().getTime();
        const state = stored?.state ?? fullBucket(limitOf(connection), nowMs);
        if (state.pausedUntilMs >= untilMs) return;
        if (await write(connection, { ...state, pausedUntilMs: untilMs }, stored)) return;
      }
    },
    setLimit(connection, limit) {
      limits.set(connection, limit);
    },
    stats: () => ({ ...counts }),
  };
}
