/**
 * What the deployment tests share: a consumer of HTTP deliveries, the sandbox's partners,
 * signed intake orders, per-function call reports and a grant taken away from a role.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Webhook } from 'standardwebhooks';
import type { DeliveryFunctionTarget } from '#functions/core/delivery/delivery-function-config.js';
import { signHeaders } from '#functions/core/intake/signatures.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { DELIVERY_ENV } from '#functions/shared/delivery-env-names.js';
import type { Sandbox } from '#sandbox/index.js';
import type { Json } from './assembly.js';
import type { Deployment } from './deployment.js';
import type { CallRecord } from './iam.js';

export interface Receiver {
  readonly url: string;
  readonly requests: {
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
    status: number;
  }[];
  /** The next requests to `path` are answered with these statuses, in order (then 200 again). */
  answerNext(path: string, statuses: number[]): void;
  close(): Promise<void>;
}

/** An HTTP consumer on 127.0.0.1 that records what it is sent and answers 200 (or as told). */
export async function startReceiver(): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const scripts = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const status = scripts.get(path)?.shift() ?? 200;
      requests.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status).end(status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answerNext: (path, statuses) => scripts.set(path, [...statuses]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Each delivery target's URL and signing secret, as the delivery function is told them and the stand-in holds them. */
export function deliverySecrets(d: Deployment): Map<string, string> {
  const fn = d.fn('DeliveriesFunction');
  const targets = JSON.parse(fn.environment[DELIVERY_ENV.targets] ?? '[]') as DeliveryFunctionTarget[];
  return new Map(
    targets.map((t) => {
      const secret = d.standIn.secretValue(t.secretArn);
      if (!secret) throw new Error(`no secret for delivery target ${t.id}`);
      return [t.url, secret];
    }),
  );
}

/** Whether a Standard Webhooks verifier with `secret` accepts the request (as a consumer checks it). */
export function verifies(request: Receiver['requests'][number], secret: string): boolean {
  const header = (name: string) => String(request.headers[name] ?? '');
  try {
    new Webhook(secret).verify(request.body, {
      'webhook-id': header('webhook-id'),
      'webhook-timestamp': header('webhook-timestamp'),
      'webhook-signature': header('webhook-signature'),
    });
    return true;
  } catch {
    return false;
  }
}

/** The partner key (IČO) of an issued invoice of the sandbox's company, for the e-invoicing setting. */
export async function invoicedPartner(sandbox: Sandbox): Promise<string> {
  const invoices = sandbox.state.list('IssuedInvoices', { pageSize: 100, pageNumber: 1 }).items as Json[];
  const ico = invoices
    .map((i) => i.BusinessPartnerAddress?.IdentificationNumber)
    .find((v) => typeof v === 'string' && v.length > 0);
  if (!ico) throw new Error('the sandbox has no invoiced partner with an IČO');
  return ico;
}

/** A Standard Webhooks signing secret. */
export const webhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** One generic (Standard Webhooks) order, signed, through the deployment's HTTP API. */
export async function postGenericOrder(d: Deployment, secret: string, n: number) {
  const body = JSON.stringify(sampleOrder('generic', n));
  const headers = {
    'content-type': 'application/json',
    ...signHeaders('generic', secret, body, { deliveryId: randomUUID(), now: new Date() }),
  };
  return d.http('POST', '/intake/generic', headers, body);
}

export function detailTypes(d: Deployment): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of d.standIn.published) out[p.event['detail-type']] = (out[p.event['detail-type']] ?? 0) + 1;
  return out;
}

export async function objectKeys(
  d: Deployment,
  bucketLogicalIdPrefix: string,
  prefix = '',
): Promise<string[]> {
  const bucket = d.assembly
    .byType('AWS::S3::Bucket')
    .find((b) => b.logicalId.startsWith(bucketLogicalIdPrefix));
  if (!bucket) throw new Error(`no bucket ${bucketLogicalIdPrefix}`);
  const out = await d.servers.s3.send(new ListObjectsV2Command({ Bucket: bucket.ref, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key as string);
}

/** Per caller: each action on each resource once, with what allowed it (the closing note's table). */
export function callReport(calls: readonly CallRecord[]): string {
  const rows = new Map<string, string>();
  for (const c of calls) {
    const resource = c.resource
      .replace(/accounting-events-prod-(stateful|stateless)-/g, '')
      .replace(/\/[^/]*\.[a-z]+(\.gz)?$/, '/…');
    const key = `${c.caller}  ${c.action}  ${resource}`;
    if (!rows.has(key))
      rows.set(key, `${key}  ← ${c.decision === 'Allowed' ? c.allowedBy.join(', ') : c.decision}`);
  }
  return [...rows.values()].sort().join('\n');
}

/**
 * Takes one action away from every statement of a function's role (as if the template had not
 * granted it) and returns how to give it back.
 */
export function revoke(d: Deployment, functionPrefix: string, action: string): () => void {
  const fn = d.fn(functionPrefix);
  const restores: (() => void)[] = [];
  for (const { policy } of d.assembly.identityPolicies(fn.roleArn)) {
    const before = policy.Statement.map((s: Json) => ({ ...s }));
    for (const s of policy.Statement) {
      const actions = [s.Action].flat().filter((a: string) => a !== action);
      s.Action = actions;
    }
    const kept = policy.Statement.filter((s: Json) => s.Action.length > 0);
    policy.Statement.splice(0, policy.Statement.length, ...kept);
    restores.push(() => policy.Statement.splice(0, policy.Statement.length, ...before));
  }
  return () => {
    for (const r of restores) r();
  };
}

/** Message counts of every queue whose name says it is a dead-letter queue. */
export function deadLetters(d: Deployment): Record<string, number> {
  return Object.fromEntries(
    d.queues
      .all()
      .filter((q) => /dlq/i.test(q.name) && q.messages.length > 0)
      .map((q) => [q.name, q.messages.length]),
  );
}

/** Invocations that failed, with their error and the function's last log lines (for failure messages). */
export function failedInvocations(d: Deployment): string {
  return d.invocations
    .filter((i) => !i.result.ok)
    .map(
      (i) =>
        `${i.fn} (${i.trigger}): ${i.result.error?.name}: ${i.result.error?.message}\n${d.lambda.output(d.fn(i.fn)).split('\n').slice(-5).join('\n')}`,
    )
    .join('\n');
}

/** Ticks until a tick's polls publish nothing (what the last ones changed is polled too); at most `max`. */
export async function tickUntilIdle(d: Deployment, pollerPrefix: string, max = 5): Promise<void> {
  for (let i = 0; i < max; i++) {
    const mark = d.invocations.length;
    await d.tick();
    const published = d.invocations
      .slice(mark)
      .filter((inv) => inv.fn.startsWith(pollerPrefix))
      .reduce(
        (sum, inv) => sum + Number((inv.result.result as { published?: number } | null)?.published ?? 0),
        0,
      );
    if (published === 0) return;
  }
  throw new Error(`still publishing after ${max} ticks`);
}

/** Requests the sandbox answered since `before`, per endpoint (for a failure message). */
export function requestsSince(d: Deployment, before: Record<string, number>): Record<string, number> {
  const now = d.sandbox.requestCounts().byEndpoint;
  return Object.fromEntries(
    Object.entries(now)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .filter(([, v]) => v > 0),
  );
}

/** The list requests among `requests` (the poller's), and the rest (the actions'). */
export function splitListRequests(requests: Record<string, number>): {
  lists: Record<string, number>;
  others: string[];
} {
  const lists = Object.fromEntries(
    Object.entries(requests).filter(([endpoint]) => endpoint.endsWith('.list')),
  );
  return { lists, others: Object.keys(requests).filter((endpoint) => !endpoint.endsWith('.list')) };
}

/**
 * The idempotency records whose expiry is not `seconds` after they were written (between the
 * deployment's start and now), each naming the table, the record and the expiry it has.
 */
export async function idempotencyMismatches(d: Deployment, seconds: number): Promise<string[]> {
  const table = d.assembly
    .byType('AWS::DynamoDB::Table')
    .find((t) => t.logicalId.startsWith('IdempotencyTable'));
  if (!table) throw new Error('no idempotency table');
  const out = await d.servers.dynamoDb.send(new ScanCommand({ TableName: table.ref }));
  const items = out.Items ?? [];
  if (items.length === 0) return [`${table.logicalId}: no idempotency record was written`];
  const nowSeconds = d.clock.now() / 1000;
  const earliest = nowSeconds - (d.clock.now() - d.startedAt) / 1000 - 60;
  return items
    .map((item) => ({ id: String(item.id?.S), expiration: Number(item.expiration?.N) }))
    .filter(
      ({ expiration }) => !(expiration >= earliest + seconds && expiration <= nowSeconds + seconds + 60),
    )
    .map(
      ({ id, expiration }) =>
        `${table.logicalId} record ${id} expires ${Math.round(expiration - nowSeconds)} s from now; the deployment's replay horizon is ${seconds} s (ACTIONS_IDEMPOTENCY_EXPIRES_SECONDS of the functions that wrote it)`,
    );
}

/** An open invoice of the sandbox: what is left to pay and its variable symbol. */
export interface OpenInvoice {
  readonly id: string;
  readonly variableSymbol: string;
  readonly rest: number;
}

/**
 * Issued invoices of the sandbox with something left to pay, in the home currency, each with a
 * variable symbol no other open invoice has (so a payment names one invoice).
 */
export function openInvoices(d: Deployment, homeCurrency: string): OpenInvoice[] {
  const state = d.sandbox.state;
  const home = state
    .list('Currencies', { pageSize: 1000, pageNumber: 1 })
    .items.find((c) => c.Code === homeCurrency)?.Id;
  const open = state
    .list('IssuedInvoices', { pageSize: 100_000, pageNumber: 1 })
    .items.filter((r) => !r.CurrencyId || r.CurrencyId === home)
    .map((r) => ({
      id: String(r.Id),
      variableSymbol: String(r.VariableSymbol ?? ''),
      rest: d.sandbox.server.domain.liquidations.paymentStatus('IssuedInvoices', r).RestToPay as number,
    }))
    .filter((i) => i.rest > 1 && /^[1-9]\d{0,9}$/.test(i.variableSymbol));
  const bySymbol = new Map<string, number>();
  for (const i of open) bySymbol.set(i.variableSymbol, (bySymbol.get(i.variableSymbol) ?? 0) + 1);
  return open.filter((i) => bySymbol.get(i.variableSymbol) === 1);
}

/** A camt.053.001.02 statement of credit transactions, as a bank exports it (symbols in `EndToEndId`). */
export function camt053(
  iban: string,
  currency: string,
  transactions: readonly { id: string; amount: number; variableSymbol: string }[],
): Uint8Array {
  const entries = transactions.map(
    (
      t,
    ) => `<Ntry><Amt Ccy="${currency}">${t.amount.toFixed(2)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2026-11-27</Dt></BookgDt><ValDt><Dt>2026-11-27</Dt></ValDt><AcctSvcrRef>${t.id}</AcctSvcrRef>
<NtryDtls><TxDtls><Refs><AcctSvcrRef>${t.id}</AcctSvcrRef><EndToEndId>/VS/${t.variableSymbol}</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>`,
  );
  return new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>DEPLOYED</MsgId><CreDtTm>2026-11-27T18:00:00</CreDtTm></GrpHdr>
<Stmt><Id>DEPLOYED-1</Id><CreDtTm>2026-11-27T18:00:00</CreDtTm><Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>${currency}</Ccy></Acct>
${entries.join('\n')}
</Stmt></BkToCstmrStmt></Document>`);
}

/** Drops a statement into the archive bucket as a bank's export would arrive, and runs what follows. */
export async function dropStatement(d: Deployment, key: string, bytes: Uint8Array): Promise<void> {
  const bucket = d.assembly.byType('AWS::S3::Bucket').find((b) => b.logicalId.startsWith('ArchiveBucket'));
  if (!bucket) throw new Error('no archive bucket');
  const sent = d.standIn.serviceEvents.length;
  await d.standIn.putObjectFromOutside(bucket.ref, key, bytes);
  if (d.standIn.serviceEvents.length === sent)
    throw new Error(
      `${bucket.logicalId} NotificationConfiguration.EventBridgeConfiguration: the bucket sent no Object Created event for ${key}, so no statement is imported`,
    );
  await d.settle();
}
