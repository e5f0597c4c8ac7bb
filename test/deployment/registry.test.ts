/**
 * The deployment of the connection registry (two companies) with the intake and HTTP deliveries,
 * run from its cloud assembly with IAM enforced: the shard's schedule → the poller of shards (payment
 * detection on) → bus → per-connection actions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbConnectionRegistry } from '../../functions/adapters/aws/dynamodb-connection-registry.js';
import { parseConnectionEntry } from '../../functions/core/connections/connection-entry.js';
import { isPayableCollection } from '../../functions/core/sync/payment-run.js';
import { type Deployment, deploy } from './deployment.js';
import {
  callReport,
  deadLetters,
  deliverySecrets,
  detailTypes,
  failedInvocations,
  invoicedPartner,
  objectKeys,
  type Receiver,
  requestsSince,
  splitListRequests,
  startReceiver,
  tickUntilIdle,
  verifies,
} from './flows.js';
import { describeDenials } from './iam.js';
import { findingsAfterTest, type OutOfFlow, overGrants, unusedAfterFile } from './proof-of-use.js';

let d: Deployment;

/** What this file's flows do not run, and why. */
const OUT_OF_FLOW: OutOfFlow = {
  Routeliquidatepayments:
    'bank statements reach the bus only locally (`bank import`, the watched folder of `run`); their S3 drop on AWS is not built yet',
  ActionFailedRule: 'no action fails in these flows (the failure paths are in failure-paths.test.ts)',
  Routesendeinvoicefixed:
    'no invoice the e-invoicing pre-flight blocked is fixed in these flows; that flow is run in einvoicing.test.ts',
  OrderIntake: 'the intake is run in one-connection.test.ts',
  ConnectionsUnhealthyRule:
    'no connection becomes unhealthy in these flows (its refusal is tested in test/local)',
};
let consumer: Receiver;
const CONNECTIONS = ['acme', 'globex'] as const;

beforeAll(async () => {
  consumer = await startReceiver();
  d = await deploy({
    sandbox: { companies: 2, sizes: { documents: 40, partners: 8, perCollection: {} } },
    config: async (sandbox) => ({
      connectionRegistry: true,
      // Payment detection on: the poller of shards runs it for every connection, under IAM.
      payments: true,
      // Every connection's events to one target; acme's alone to another.
      // The consumer listens on this machine: loopback targets allowed (refused by default).
      deliveryPrivateTargets: true,
      deliveries: [`${consumer.url}/events`, { url: `${consumer.url}/acme`, connections: ['acme'] }],
      // E-invoicing on: the sending route and the scheduled tracker serve every connection.
      actions: { ACTIONS_EINVOICE_PARTNERS: await invoicedPartner(sandbox) },
    }),
  });
  const table = d.assembly
    .byType('AWS::DynamoDB::Table')
    .find((t) => t.logicalId.startsWith('ConnectionsTable'));
  if (!table) throw new Error('no registry table');
  const registry = createDynamoDbConnectionRegistry({ client: d.servers.dynamoDb, tableName: table.ref });
  for (const [i, name] of CONNECTIONS.entries()) {
    const secretName = `accounting-events-prod/connections/${name}`;
    d.standIn.secretStore.put(secretName, JSON.stringify({ apiKey: d.sandbox.credentialsOf(i + 1).apiKey }));
    await registry.add(
      parseConnectionEntry(
        { name, baseUrl: d.sandbox.baseUrl, authUrl: d.sandbox.authUrl, credentialsSecret: secretName },
        name,
      ),
    );
  }
}, 300_000);

afterEach(() => {
  if (d) expect(findingsAfterTest(d)).toBe('');
});

afterAll(async () => {
  const unused = d ? [unusedAfterFile(d, OUT_OF_FLOW), await overGrants(d)].filter(Boolean).join('\n') : '';
  if (d) console.info(`calls per function (registry):\n${callReport(d.authorizer.calls)}`);
  await d?.close();
  expect(unused).toBe('');
  await consumer?.close();
});

describe('connection registry, deployed', () => {
  it('a tick polls every registered connection; its actions run for it; no call is denied', async () => {
    await d.tick();
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');
    expect(d.standIn.unsupported).toEqual([]);
    const sources = new Set(d.standIn.published.map((p) => p.event.source));
    expect(sources).toEqual(new Set(CONNECTIONS.map((c) => `accounting.${c}`)));
    const types = detailTypes(d);
    expect(types['IssuedInvoice.Created']).toBeGreaterThan(0);
    expect(
      types['ReceivedOrder.Transferred'] ?? 0,
      `${JSON.stringify(types)}\n${d.lambda.output(d.fn('RoutetransferreceivedorderFunction')).slice(-3000)}`,
    ).toBeGreaterThan(0);
    expect(types['Action.Failed']).toBeUndefined();
    for (const name of CONNECTIONS) {
      expect((await objectKeys(d, 'ArchiveBucket', `isdoc/${name}/`)).length, name).toBeGreaterThan(0);
    }
    const endpoints = d.sandbox.requestCounts().byEndpoint;
    const sent = Object.entries(endpoints).filter(([endpoint]) => endpoint.endsWith('sendEInvoice'));
    expect(
      sent.reduce((sum, [, count]) => sum + count, 0),
      JSON.stringify(endpoints),
    ).toBeGreaterThan(0);
    expect(d.invocations.some((i) => i.fn.startsWith('Scheduledtrackeinvoices'))).toBe(true);
    const all = consumer.requests.filter((r) => r.path === '/events');
    const acme = consumer.requests.filter((r) => r.path === '/acme');
    expect(all.length).toBe(d.standIn.published.length);
    // The target configured for acme receives acme's events, each once, and none of globex's.
    const acmeIds = d.standIn.published
      .filter((p) => p.event.source === 'accounting.acme')
      .map((p) => p.event.id);
    expect(acmeIds.length).toBeGreaterThan(0);
    expect(acme.map((r) => JSON.parse(r.body).source as string)).toEqual(acme.map(() => 'accounting.acme'));
    expect(acme.map((r) => String(r.headers['webhook-id'])).sort()).toEqual([...acmeIds].sort());
    const secrets = deliverySecrets(d);
    const allSecret = secrets.get(`${consumer.url}/events`) as string;
    const acmeSecret = secrets.get(`${consumer.url}/acme`) as string;
    expect(acme.filter((r) => !verifies(r, acmeSecret))).toEqual([]);
    expect(acme.filter((r) => verifies(r, allSecret))).toEqual([]);
    expect(all.filter((r) => !verifies(r, allSecret))).toEqual([]);
    expect(deadLetters(d)).toEqual({});
  }, 180_000);

  it('an idle tick makes one request per polled collection of each connection', async () => {
    await tickUntilIdle(d, 'ConnectionsPoller');
    const before = { ...d.sandbox.requestCounts().byEndpoint };
    const mark = d.invocations.length;
    await d.tick();
    const polls = d.invocations.slice(mark).filter((i) => i.fn.startsWith('ConnectionsPoller'));
    expect(polls.length).toBeGreaterThan(0);
    expect(detailTypes(d)['Action.Failed']).toBeUndefined();
    const collections = d.assembly
      .byType('AWS::Lambda::Function')
      .map((f) => d.assembly.props(f).Environment?.Variables?.POLLER_COLLECTIONS)
      .find((v) => typeof v === 'string');
    const perConnection = collections ? String(collections).split(',').length : 12;
    // One list page per polled collection of each connection, and one more of each payable
    // collection for the payment detector; anything else is an action's.
    const requests = requestsSince(d, before);
    const { lists } = splitListRequests(requests);
    expect(Object.keys(lists), JSON.stringify(requests)).toHaveLength(perConnection);
    const payable = Object.keys(lists).filter((endpoint) =>
      isPayableCollection(endpoint.split('.')[0] ?? ''),
    );
    expect(payable.length, JSON.stringify(requests)).toBeGreaterThan(0);
    for (const [endpoint, n] of Object.entries(lists)) {
      expect(n, endpoint).toBe(payable.includes(endpoint) ? 2 * CONNECTIONS.length : CONNECTIONS.length);
    }
    expect(d.authorizer.denied()).toEqual([]);
  }, 180_000);
});
