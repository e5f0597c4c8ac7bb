/**
 * Meters for the connections benchmark: what the AWS pieces would bill, counted on their local
 * twins. DynamoDB requests and on-demand units as dynalite computes them from the item sizes
 * (`ReturnConsumedCapacity`), PutEvents entries and their 64 KB chunks, Secrets Manager reads,
 * CloudWatch custom metrics (distinct name + dimensions) with the EMF bytes they log, and the
 * bytes the functions' structured logs would ingest.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import type { BusEvent, EventPublisher, Logger } from '../functions/core/ports.js';
import type { PollMetrics } from '../functions/handlers/poll-metrics.js';

export interface DynamoDbMeter {
  requests: number;
  /** On-demand read request units (0.5 per 4 KB eventually consistent, 1 strongly consistent). */
  readUnits: number;
  /** On-demand write request units (1 per KB of the larger of the old and new item). */
  writeUnits: number;
}

const READS = new Set(['GetItem', 'Get', 'Query', 'Scan', 'BatchGetItem', 'BatchGet']);
const WRITES = new Set([
  'PutItem',
  'Put',
  'UpdateItem',
  'Update',
  'DeleteItem',
  'Delete',
  'BatchWriteItem',
  'BatchWrite',
  'TransactWriteItems',
]);

type Capacity = { CapacityUnits?: number } | undefined;
const unitsOf = (c: Capacity | Capacity[]) =>
  (Array.isArray(c) ? c : [c]).reduce((n, x) => n + (x?.CapacityUnits ?? 0), 0);

/** Counts every data-plane request of `client` and the units it consumed; a refused conditional write costs 1 WRU. */
export function meterDynamoDb(client: DynamoDBClient): DynamoDbMeter {
  const meter: DynamoDbMeter = {
    requests: 0,
    readUnits: 0,
    writeUnits: 0,
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      const isRead = READS.has(command);
      const isWrite = WRITES.has(command);
      if (!isRead && !isWrite) return next(args);
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      meter.requests++;
      try {
        const result = await next(args);
        const units = unitsOf(
          (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity,
        );
        if (isRead) meter.readUnits += units;
        else meter.writeUnits += units;
        return result;
      } catch (error) {
        if (isWrite) meter.writeUnits += 1;
        throw error;
      }
    },
    { step: 'initialize', name: 'benchDynamoDbMeter' },
  );
  return meter;
}

export interface CountingPublisher extends EventPublisher {
  /** PutEvents bills each 64 KB chunk of an entry as one event. */
  readonly billedEntries: number;
}

/** EventBridge stand-in: accepts every entry and counts what PutEvents would bill. */
export function createCountingPublisher(
  onPublished?: (events: readonly BusEvent[]) => void,
): CountingPublisher {
  let billedEntries = 0;
  return {
    async publish(events: readonly BusEvent[]) {
      onPublished?.(events);
      for (const e of events) {
        const bytes = Buffer.byteLength(
          JSON.stringify({ Source: e.source, DetailType: e.detailType, Detail: e.detail }),
        );
        billedEntries += Math.max(1, Math.ceil(bytes / 65_536));
      }
    },
    get billedEntries() {
      return billedEntries;
    },
  };
}

export interface MeteredMetrics extends PollMetrics {
  /** Distinct metrics (name + dimensions): CloudWatch bills each as one custom metric. */
  series(): string[];
  /** Bytes of the EMF documents written (one per data point, as Powertools' single metrics). */
  readonly emfBytes: number;
}

/** A `PollMetrics` sink that keeps the distinct series and the size of their EMF documents. */
export function createMeteredMetrics(namespace = 'AccountingEvents'): MeteredMetrics {
  const series = new Set<string>();
  let emfBytes = 0;
  const put = (name: string, unit: string, value: number, dimensions: Record<string, string> = {}) => {
    series.add(JSON.stringify([name, Object.entries(dimensions).sort()]));
    emfBytes += Buffer.byteLength(
      JSON.stringify({
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            {
              Namespace: namespace,
              Dimensions: [Object.keys(dimensions)],
              Metrics: [{ Name: name, Unit: unit }],
            },
          ],
        },
        ...dimensions,
        [name]: value,
      }),
    );
  };
  return {
    count: (name, value, dimensions) => put(name, 'Count', value, dimensions),
    milliseconds: (name, value, dimensions) => put(name, 'Milliseconds', value, dimensions),
    flush() {},
    series: () => [...series],
    get emfBytes() {
      return emfBytes;
    },
  };
}

export interface MeteredLogger extends Logger {
  /** Bytes of the JSON lines the functions would have logged at level info and above. */
  readonly bytes: number;
  readonly errors: Array<{ message: string; data?: Record<string, unknown> }>;
}

/** A logger that writes nothing but counts the bytes of the lines a Lambda's JSON logger would write. */
export function createMeteredLogger(): MeteredLogger {
  let bytes = 0;
  const errors: MeteredLogger['errors'] = [];
  const line = (level: string, message: string, data?: Record<string, unknown>) => {
    bytes +=
      Buffer.byteLength(JSON.stringify({ level, message, timestamp: new Date().toISOString(), ...data })) + 1;
  };
  return {
    debug() {},
    info: (message, data) => line('INFO', message, data),
    warn: (message, data) => line('WARN', message, data),
    error: (message, data) => {
      line('ERROR', message, data);
      errors.push({ message, ...(data ? { data } : {}) });
    },
    get bytes() {
      return bytes;
    },
    errors,
  };
}

export interface SecretsManagerTwin {
  client: SecretsManagerClient;
  readonly reads: number;
}

/** Secrets Manager answered in process: `secretId` → its credentials JSON; counts `GetSecretValue`. */
export function createSecretsManagerTwin(
  secretOf: (secretId: string) => string | undefined,
): SecretsManagerTwin {
  const client = new SecretsManagerClient({
    region: 'eu-central-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  let reads = 0;
  mockClient(client)
    .on(GetSecretValueCommand)
    .callsFake((input: { SecretId?: string }) => {
      reads++;
      const value = secretOf(input.SecretId ?? '');
      if (value === undefined)
        throw Object.assign(new Error('no such secret'), { name: 'ResourceNotFoundException' });
      return { SecretString: value, ARN: input.SecretId, Name: input.SecretId };
    });
  return {
    client,
    get reads() {
      return reads;
    },
  };
}

export interface SsmTwin {
  client: SSMClient;
  /** `GetParameters` calls answered. */
  readonly calls: number;
  /** Parameters returned (each one a KMS decryption on AWS). */
  readonly parameters: number;
}

/** SSM Parameter Store answered in process: `GetParameters` with the values `parameterValue` gives, counted. */
export function createSsmTwin(parameterValue: (name: string) => string | undefined): SsmTwin {
  const client = new SSMClient({
    region: 'eu-central-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  let calls = 0;
  let parameters = 0;
  mockClient(client)
    .on(GetParametersCommand)
    .callsFake((input: { Names?: string[] }) => {
      calls++;
      if ((input.Names?.length ?? 0) > 10) throw new Error('GetParameters takes at most 10 names');
      const found = (input.Names ?? []).flatMap((name) => {
        const value = parameterValue(name);
        return value === undefined ? [] : [{ Name: name, Type: 'SecureString', Value: value }];
      });
      parameters += found.length;
      return {
        Parameters: found,
        InvalidParameters: (input.Names ?? []).filter((n) => parameterValue(n) === undefined),
      };
    });
  return {
    client,
    get calls() {
      return calls;
    },
    get parameters() {
      return parameters;
    },
  };
}
