import { afterAll, beforeAll } from 'vitest';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import { createMemoryIdempotencyGuard } from '#functions/adapters/local/memory-idempotency-guard.js';
import { startTestServers, type TestServers } from '../support/embedded.js';
import { describeIdempotencyGuardContract } from './idempotency-guard-contract.js';

let servers: TestServers;
let tableName: string;
beforeAll(async () => {
  servers = await startTestServers();
  tableName = await servers.idempotencyTable();
});
afterAll(() => servers.close());

describeIdempotencyGuardContract('memory', () => createMemoryIdempotencyGuard());
describeIdempotencyGuardContract('Powertools on DynamoDB (dynalite)', () =>
  createPowertoolsGuard({ client: servers.dynamoDb, tableName, expiresAfterSeconds: 600 }),
);
