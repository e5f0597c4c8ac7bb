/**
 * Measures what the fan-out of many connections costs per connection and cycle (not a test; run
 * with tsx):
 *
 *   npx tsx test/connections/measure-fanout.ts [--connections 50] [--cycles 3] [--batch-size 5]
 *
 * In one process: a sandbox serving N companies, dynalite (registry, checkpoints, rate limits), the
 * SQS FIFO stand-in; the dispatcher handler and the connection poller (`pollBatch`) as on Lambda,
 * with the DynamoDB adapters on a counting client. The first cycle backfills; the following ones
 * are steady (no change in the sandbox). Prints JSON per cycle: poller invocations, DynamoDB
 * requests by command, SQS calls, PutEvents entries, service requests — totals and per connection.
 */
import { parseArgs } from 'node:util';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createAccountingClient } from '../../functions/accounting/client.js';
import { parseAccountingConfig } from '../../functions/accounting/config.js';
import { createDynamoDbCheckpointStore } from '../../functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createDynamoDbConnectionRegistry } from '../../functions/adapters/aws/dynamodb-connection-registry.js';
import { createDynamoDbRateLimiter } from '../../functions/adapters/aws/dynamodb-rate-limiter.js';
import { createSqsPollQueue } from '../../functions/adapters/aws/sqs-poll-queue.js';
import {
  createCheckpointTable,
  createConnectionRegistryTable,
  createDynaliteClient,
  startEmbeddedServers,
} from '../../functions/adapters/local/embedded-servers.js';
import { parseConnectionEntry } from '../../functions/core/connections/connection-entry.js';
import { requestLimiterFor } from '../../functions/core/connections/request-limiter.js';
import type { BusEvent } from '../../functions/core/ports.js';
import { pollOptionsSchema } from '../../functions/core/sync/poll-options.js';
import { createConnectionClients } from '../../functions/handlers/connection-clients.js';
import { createHandler as createDispatcher } from '../../functions/handlers/dispatch-polls.js';
import { pollBatch, RATE_LIMIT_PREFETCH } from '../../functions/handlers/poll-connections.js';
import { systemClock } from '../../functions/shared/clock.js';
import { silentLogger } from '../../functions/shared/logger.js';
import { startSandbox } from '../../sandbox/index.js';
import { createFifoQueueStandIn } from '../fakes/fifo-queue.js';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '50' },
    cycles: { type: 'string', default: '3' },
    'batch-size': { type: 'string', default: '5' },
  },
});
const N = Number(values.connections);
const CYCLES = Number(values.cycles);
const BATCH = Number(values['batch-size']);

/** A DynamoDB client on dynalite that counts requests by command. */
function countingClient(endpoint: string): { client: DynamoDBClient; counts: Map<string, number> } {
  const client = createDynaliteClient(endpoint);
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return { client, counts };
}

async function main() {
  const clock = systemClock;
  const [sandbox, servers] = await Promise.all([
    startSandbox({ companies: N, seed: 11, activity: { enabled: false } } as never),
    startEmbeddedServers(),
  ]);
  const { client: dynamoDb, counts } = countingClient(servers.dynamoDbEndpoint);
  await Promise.all([
    createConnectionRegistryTable(servers.dynamoDb, 'connections'),
    createCheckpointTable(servers.dynamoDb, 'checkpoints'),
    createCheckpointTable(servers.dynamoDb, 'rate-limits'),
  ]);
  const registry = createDynamoDbConnectionRegistry({ client: dynamoDb, tableName: 'connections' });
  for (let i = 1; i <= N; i++) {
    await registry.add(
      parseConnectionEntry({
        name: `sandbox-${i}`,
        variant: 'sk',
        baseUrl: sandbox.baseUrl,
        credentialsSecret: `env:SANDBOX_${i}_CREDENTIALS`,
      }),
    );
  }
  const queue = createFifoQueueStandIn({ clock });
  const limiter = createDynamoDbRateLimiter({
    client: dynamoDb,
    tableName: 'rate-limits',
    clock,
    prefetch: RATE_LIMIT_PREFETCH,
  });
  let putEventsEntries = 0;
  const deps = {
    registry,
    clients: createConnectionClients({
      max: N,
      build: async (e) =>
        createAccountingClient(
          parseAccountingConfig({
            baseUrl: e.baseUrl,
            variant: e.variant,
            apiKey: sandbox.credentialsOf(Number(e.name.split('-')[1])).apiKey,
          }),
          { clock, logger: silentLogger, limiter: requestLimiterFor(limiter, e.name) },
        ),
    }),
    checkpoints: createDynamoDbCheckpointStore({ client: dynamoDb, tableName: 'checkpoints' }),
    publisher: {
      publish: async (batch: readonly BusEvent[]) => {
        putEventsEntries += batch.length;
      },
    },
    clock,
    logger: silentLogger,
    limiter,
    settings: {
      options: pollOptionsSchema.omit({ connection: true, variant: true, source: true }).parse({}),
      concurrency: 4,
    },
  };
  const dispatch = createDispatcher({
    registry,
    queue: createSqsPollQueue({ client: queue.client, queueUrl: queue.queueUrl }),
    clock,
    logger: silentLogger,
  });
  const results = [];
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    counts.clear();
    putEventsEntries = 0;
    const sendsBefore = queue.sendBatchCalls;
    const started = performance.now();
    const dispatched = await dispatch({ scheduledTime: new Date(Date.now() + cycle * 60_000).toISOString() });
    const dispatchMs = performance.now() - started;
    let requests = 0;
    const durations: number[] = [];
    const invocations = await queue.drain(async (event) => {
      const out = await pollBatch(deps, event);
      for (const o of out.outcomes) {
        requests += o.requests;
        durations.push(o.durationMs);
      }
      return out;
    }, BATCH);
    const dynamo = Object.fromEntries([...counts].sort());
    const perConnection = (n: number) => Math.round((n / N) * 100) / 100;
    durations.sort((a, b) => a - b);
    results.push({
      cycle,
      connections: N,
      dispatched: dispatched.enqueued,
      dispatchMs: Math.round(dispatchMs),
      pollerInvocations: invocations,
      sqsSendMessageBatch: queue.sendBatchCalls - sendsBefore,
      putEventsEntries,
      serviceRequests: requests,
      dynamoDb: dynamo,
      perConnection: {
        serviceRequests: perConnection(requests),
        dynamoDbRequests: perConnection([...counts.values()].reduce((a, b) => a + b, 0)),
        pollerInvocations: perConnection(invocations),
        pollMsP50: durations[Math.floor(durations.length / 2)] ?? 0,
        pollMsP95: durations[Math.floor(durations.length * 0.95)] ?? 0,
      },
    });
  }
  console.log(JSON.stringify(results, null, 2));
  await deps.clients.close();
  await sandbox.close();
  await servers.close();
}

await main();
