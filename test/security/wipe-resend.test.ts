/**
 * Issue 33, finding 1's attack: deleting the idempotency, state and checkpoint items made the next
 * poll republish the invoices, and the actions sent all 73 of 73 e-invoices a second time. Another
 * process can no longer reach the stores (`local-stores.test.ts`); and in depth, losing the records
 * a sending is usually recognised by — every idempotency record, every checkpoint, the open
 * e-invoice sendings (whose finished entries are kept an hour only) — sends nothing twice: each
 * sending was claimed in the sent ledger before it went, and is checked against it again.
 *
 * The real local runtime over the sandbox: half its partners get their invoices as e-invoices, half
 * by e-mail; it sends, stops, loses those records, starts again and republishes every invoice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_RESOURCES, startLocalStores } from '#functions/local/local-stores.js';
import { startRuntime } from '#functions/local/runtime.js';
import type { Runtime } from '#functions/local/runtime-options.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'security-wipe-'));
  sandbox = await startSandbox({ sizes: { documents: 40, partners: 8, perCollection: {} } });
  const { items } = sandbox.state.list('BusinessPartners', { pageSize: 1000, pageNumber: 1 });
  const keys = [...new Set(items.map((p) => p.IdentificationNumber).filter((v): v is string => !!v))];
  env = {
    ACTIONS_EINVOICE_PARTNERS: keys.filter((_, i) => i % 2 === 0).join(','),
    ACTIONS_EMAIL_PARTNERS: keys.filter((_, i) => i % 2 === 1).join(','),
  };
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function start(): Promise<Runtime> {
  return startRuntime({
    sandbox: { instance: sandbox },
    env,
    dataDir,
    intervalMs: 150,
    trackerIntervalMs: 150,
    actions: true,
    backfillProgress: false,
  });
}

/** Polls until a poll publishes nothing more, then lets every action finish. */
async function settle(runtime: Runtime): Promise<void> {
  for (let i = 0; i < 30; i++) {
    const summary = await runtime.pollOnce();
    await runtime.drain();
    if (summary.published === 0 && !summary.more && i > 0) return;
  }
}

const sent = () => {
  const counts = sandbox.requestCounts().byEndpoint;
  return { einvoices: counts['Documents.sendEInvoice'] ?? 0, emails: counts['Documents.sendEmail'] ?? 0 };
};

/** Deletes every item of a table of the embedded DynamoDB whose key passes `which`. */
async function wipe(table: string, key: string, which: (value: string) => boolean): Promise<number> {
  const stores = await startLocalStores(dataDir);
  let deleted = 0;
  try {
    const { Items = [] } = await stores.servers.dynamoDb.send(new ScanCommand({ TableName: table }));
    for (const item of Items) {
      const value = item[key]?.S ?? '';
      if (!which(value)) continue;
      await stores.servers.dynamoDb.send(
        new DeleteItemCommand({ TableName: table, Key: { [key]: { S: value } } }),
      );
      deleted++;
    }
  } finally {
    await stores.close();
  }
  return deleted;
}

describe('the wipe-and-resend attack', () => {
  it('losing the idempotency records, the checkpoints and the open sendings sends nothing twice', async () => {
    let runtime = await start();
    try {
      await settle(runtime);
    } finally {
      await runtime.stop();
    }
    const first = sent();
    console.info(`security: first run sent ${first.einvoices} e-invoices, ${first.emails} e-mails`);
    expect(first.einvoices).toBeGreaterThan(0);
    expect(first.emails).toBeGreaterThan(0);

    const lost = {
      idempotency: await wipe(LOCAL_RESOURCES.idempotencyTable, 'id', () => true),
      checkpoints: await wipe(LOCAL_RESOURCES.checkpointTable, 'pk', () => true),
      openSendings: await wipe(LOCAL_RESOURCES.stateTable, 'pk', (k) => k.startsWith('einvoice-sendings#')),
    };
    console.info(`security: records lost ${JSON.stringify(lost)}`);
    expect(lost.idempotency).toBeGreaterThanOrEqual(first.einvoices + first.emails);
    expect(lost.checkpoints).toBeGreaterThan(0);

    runtime = await start();
    let republished = 0;
    try {
      const counts = runtime.counts();
      await settle(runtime);
      republished = counts.get('IssuedInvoice.Created') ?? 0;
    } finally {
      await runtime.stop();
    }
    // Every invoice came again, and not one was sent again.
    expect(republished).toBeGreaterThan(0);
    expect(sent()).toEqual(first);
  }, 240_000);
});
