/**
 * The deployment of the connection registry (two companies) with the intake and HTTP deliveries,
 * run from its cloud assembly with IAM enforced: the shard's schedule → the poller of shards (payment
 * detection on) → bus → per-connection actions.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbConnectionRegistry } from '#functions/adapters/aws/dynamodb-connection-registry.js';
import { parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { sealCredentials } from '#functions/core/connections/sealed-credentials.js';
import { isPayableCollection } from '#functions/core/sync/payment-run.js';
import { ACCOUNT, REGION } from './assembly.js';
import { namedOutputs, outputValue } from './day-one.js';
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
  Routeliquidatepayments: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  Routeliquidateshoppayment: "a shop's orders/paid through the intake is run in one-connection.test.ts",
  BankStatements: 'the bank statements dropped into S3 are run in one-connection.test.ts',
  ActionFailedRule:
    'no action fails in these flows (a liquidation whose outcome is unknown fails in one-connection.test.ts)',
  Routesendeinvoicefixed:
    'no invoice the e-invoicing pre-flight blocked is fixed in these flows; that flow is run in einvoicing.test.ts',
  OrderIntake: 'the intake is run in one-connection.test.ts',
};
let consumer: Receiver;
const CONNECTIONS = ['acme', 'globex'] as const;
let registry: ReturnType<typeof createDynamoDbConnectionRegistry>;

beforeAll(async () => {
  consumer = await startReceiver();
  d = await deploy({
    // A third company for the connection whose credentials are an SSM parameter.
    sandbox: { companies: 3, sizes: { documents: 40, partners: 8, perCollection: { ReceivedOrders: 4 } } },
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
  // Step 4 of the day-one checklist (docs/deploy.md): companies are added to the table its
  // `connections add --table "$(out stateful ConnectionsTableName)"` names.
  const named = namedOutputs().find((o) => o.key === 'ConnectionsTableName');
  const tableName = named && outputValue(d.assembly, named);
  if (!tableName)
    throw new Error('the day-one checklist names no ConnectionsTableName output this stack has');
  const table = d.assembly.byRefOrArn(tableName);
  if (!table?.logicalId.startsWith('ConnectionsTable'))
    throw new Error(`${tableName} is not the registry table`);
  registry = createDynamoDbConnectionRegistry({ client: d.servers.dynamoDb, tableName });
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

  it('a connection whose key is an SSM SecureString is polled with it (decrypted with aws/ssm through SSM); one whose key the service refuses is unhealthy, and logged', async () => {
    const parameter = (name: string) => `/accounting-events-prod/connections/${name}`;
    d.standIn.ssmAndKms.put(
      parameter('initech'),
      JSON.stringify({ apiKey: d.sandbox.credentialsOf(3).apiKey }),
      'SecureString',
    );
    d.standIn.ssmAndKms.put(
      parameter('hooli'),
      JSON.stringify({ apiKey: 'a-key-the-service-refuses' }),
      'SecureString',
    );
    for (const name of ['initech', 'hooli'])
      await registry.add(
        parseConnectionEntry(
          {
            name,
            baseUrl: d.sandbox.baseUrl,
            authUrl: d.sandbox.authUrl,
            credentialsSecret: `ssm:${parameter(name)}`,
          },
          name,
        ),
      );
    const calls = d.authorizer.calls.length;
    const published = d.standIn.published.length;
    await d.tick();
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');
    const events = d.standIn.published.slice(published).map((p) => p.event);
    // initech: polled with the key read from SSM, its documents published and acted on.
    const initech = events.filter((e) => e.source === 'accounting.initech');
    expect(initech.filter((e) => e['detail-type'] === 'IssuedInvoice.Created').length).toBeGreaterThan(0);
    const made = d.authorizer.calls.slice(calls);
    const reads = made.filter((c) => c.action === 'ssm:GetParameters');
    expect(reads.some((c) => c.resource.endsWith(parameter('initech')))).toBe(true);
    expect(reads.every((c) => c.decision === 'Allowed')).toBe(true);
    // The SecureString is decrypted through SSM with the AWS managed key, on the caller's behalf.
    const decrypts = made.filter((c) => c.action === 'kms:Decrypt');
    expect(decrypts.length).toBeGreaterThan(0);
    expect(decrypts.every((c) => c.decision === 'Allowed')).toBe(true);
    // hooli: refused by the service, so unhealthy — once — and the unhealthy rule logged it.
    const unhealthy = events.filter((e) => e['detail-type'] === 'Connection.Unhealthy');
    expect(unhealthy.map((e) => [e.detail.connection, e.detail.reason])).toEqual([
      ['hooli', 'authentication'],
    ]);
    expect(
      events.filter((e) => e.source === 'accounting.hooli' && e['detail-type'] !== 'Connection.Unhealthy'),
    ).toEqual([]);
    const rule = d.assembly
      .byType('AWS::Events::Rule')
      .find((r) => r.logicalId.startsWith('ConnectionsUnhealthyRule'));
    expect(d.usage.targetDeliveries.get(`${rule?.logicalId}#Targets[0]`)).toBe(1);
    expect(deadLetters(d)).toEqual({});
  }, 180_000);

  it('connections whose credentials are sealed in their entries are polled with them, one KMS Decrypt per container (not per connection); a sealed value copied to another entry is unhealthy', async () => {
    const key = d.assembly.byType('AWS::KMS::Key').find((k) => k.logicalId.startsWith('SealingKey'));
    const keyArn = String(key?.attributes.Arn);
    const dataKey = randomBytes(32);
    // What `connections add --seal-credentials` leaves: the data key as a SecureString under the key.
    d.standIn.ssmAndKms.put(
      '/accounting-events-prod/sealing-keys/k1',
      dataKey.toString('base64'),
      'SecureString',
      keyArn,
    );
    const sealedFor = (name: string, company: number) =>
      sealCredentials({
        connection: name,
        keyId: 'k1',
        dataKey,
        plaintext: JSON.stringify({ apiKey: d.sandbox.credentialsOf(company).apiKey }),
      });
    const sealed = { umbrella: sealedFor('umbrella', 1), wayne: sealedFor('wayne', 2) };
    const entries = { ...sealed, mallory: sealed.umbrella };
    for (const [name, credentialsSecret] of Object.entries(entries))
      await registry.add(
        parseConnectionEntry(
          { name, baseUrl: d.sandbox.baseUrl, authUrl: d.sandbox.authUrl, credentialsSecret },
          name,
        ),
      );
    const calls = d.authorizer.calls.length;
    const published = d.standIn.published.length;
    const coldStarts = new Map(d.lambda.coldStarts);
    await d.tick();
    expect(failedInvocations(d)).toBe('');
    expect(describeDenials(d.authorizer.denied())).toBe('');
    const events = d.standIn.published.slice(published).map((p) => p.event);
    for (const name of ['umbrella', 'wayne'])
      expect(
        events.filter(
          (e) => e.source === `accounting.${name}` && e['detail-type'] === 'IssuedInvoice.Created',
        ).length,
        name,
      ).toBeGreaterThan(0);
    // The copy does not open under another name: unhealthy (credentials), nothing else published.
    expect(
      events.filter((e) => e.source === 'accounting.mallory').map((e) => [e['detail-type'], e.detail.reason]),
    ).toEqual([['Connection.Unhealthy', 'credentials']]);
    // Decryptions of the data key, each through SSM for its parameter: per function, at most one
    // per container it ran in — the poller opened three sealed entries with one.
    const decrypts = d.authorizer.calls
      .slice(calls)
      .filter((c) => c.action === 'kms:Decrypt' && c.resource === keyArn);
    expect(decrypts.length).toBeGreaterThan(0);
    expect(decrypts.every((c) => c.decision === 'Allowed')).toBe(true);
    expect(new Set(decrypts.map((c) => c.context['kms:EncryptionContext:PARAMETER_ARN']))).toEqual(
      new Set([`arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/accounting-events-prod/sealing-keys/k1`]),
    );
    const perFunction = new Map<string, number>();
    for (const c of decrypts) perFunction.set(c.caller, (perFunction.get(c.caller) ?? 0) + 1);
    const poller = [...perFunction.keys()].find((f) => f.startsWith('ConnectionsPoller'));
    expect(poller, JSON.stringify([...perFunction])).toBeDefined();
    for (const [fn, n] of perFunction) {
      const containers = Math.max(1, (d.lambda.coldStarts.get(fn) ?? 0) - (coldStarts.get(fn) ?? 0));
      expect(n, fn).toBe(containers);
    }
    // The next tick opens them from the containers' kept key: no decryption at all.
    const mark = d.authorizer.calls.length;
    const before = new Map(d.lambda.coldStarts);
    await d.tick();
    const again = d.authorizer.calls
      .slice(mark)
      .filter((c) => c.action === 'kms:Decrypt' && c.resource === keyArn);
    const restarted = [...d.lambda.coldStarts]
      .filter(([fn, n]) => n > (before.get(fn) ?? 0))
      .map(([fn]) => fn);
    expect(again.filter((c) => !restarted.includes(c.caller))).toEqual([]);
    expect(deadLetters(d)).toEqual({});
  }, 240_000);
});
