/**
 * The roles' policies as IAM evaluates them (@cloud-copilot/iam-simulate), for the calls a first
 * deployment makes: the poller's first read of a missing id list (S3 checks `s3:ListBucket` to
 * answer 404; a GET carries no `s3:prefix`), the archive's HEAD of a new key, and `PutEvents`
 * with the multi-valued `events:source` / `events:detail-type` keys (one value per entry).
 * References of the synthesized template are resolved to fixed ARNs first.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, TEST_ENV, type TestApp } from './support.js';

const ACCOUNT = TEST_ENV.account;
const ARN = {
  claimCheckBucket: 'arn:aws:s3:::accounting-events-claim-checks',
  archiveBucket: 'arn:aws:s3:::accounting-events-archive',
  eventBus: `arn:aws:events:${TEST_ENV.region}:${ACCOUNT}:event-bus/accounting-events-prod`,
  credentialsSecret: `arn:aws:secretsmanager:${TEST_ENV.region}:${ACCOUNT}:secret:accounting-events-prod/accounting-credentials-AbCdEf`,
};

/** A template value with its references replaced by the fixed ARNs above (or a placeholder ARN). */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => String(resolve(p))).join(separator);
  }
  if ('Fn::ImportValue' in object || 'Fn::GetAtt' in object || 'Ref' in object) {
    const text = JSON.stringify(object);
    if (text.includes('AWS::Partition')) return 'aws';
    if (text.includes('AWS::Region')) return TEST_ENV.region;
    if (text.includes('AWS::AccountId')) return ACCOUNT;
    if (text.includes('ClaimCheckBucket')) return ARN.claimCheckBucket;
    if (text.includes('ArchiveBucket')) return ARN.archiveBucket;
    if (text.includes('EventBus')) return ARN.eventBus;
    if (text.includes('CredentialsSecret')) return ARN.credentialsSecret;
    return `arn:aws:sqs:${TEST_ENV.region}:${ACCOUNT}:${text.replace(/\W/g, '')}`;
  }
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolve(v)]));
}

let t: TestApp;
beforeAll(() => {
  t = buildTestApp({ actions: { ACTIONS_EINVOICE_PARTNERS: '12345678' } });
});

/** The resolved identity policies of the role of the function at `path`. */
function policiesOf(path: string): { name: string; policy: unknown }[] {
  const role = t.stateless.node.findChild(path).node.findChild('Role');
  const roleId = t.stateless.resolve((role.node.defaultChild as unknown as { logicalId: string }).logicalId);
  const resources = t.statelessTemplate.toJSON().Resources as Record<
    string,
    { Type: string; Properties: Record<string, unknown> }
  >;
  return Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(roleId))
    .map(([id, r]) => ({ name: id, policy: resolve(r.Properties.PolicyDocument) }));
}

async function decide(
  path: string,
  action: string,
  resource: string,
  contextVariables: Record<string, string | string[]> = {},
): Promise<string> {
  const result = await runSimulation(
    {
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:role/${path}`,
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables,
      },
      identityPolicies: policiesOf(path),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (result.resultType === 'error') throw new Error(`simulation refused: ${JSON.stringify(result.errors)}`);
  return result.overallResult;
}

describe('S3: a missing key answers 404, not 403', () => {
  it('the poller may read its id list and list the claim-check bucket without a prefix', async () => {
    const idList = `${ARN.claimCheckBucket}/sync/default/IssuedInvoices/ids.txt.gz`;
    expect(await decide('Poller', 's3:GetObject', idList)).toBe('Allowed');
    expect(await decide('Poller', 's3:PutObject', idList)).toBe('Allowed');
    // What S3 evaluates for the GET of a missing key: ListBucket, with no s3:prefix in the request.
    expect(await decide('Poller', 's3:ListBucket', ARN.claimCheckBucket)).toBe('Allowed');
    expect(await decide('Poller', 's3:GetObject', `${ARN.claimCheckBucket}/claims/x.json`)).toBe(
      'ImplicitlyDenied',
    );
    expect(await decide('Poller', 's3:PutObject', `${ARN.archiveBucket}/isdoc/x.isdoc`)).toBe(
      'ImplicitlyDenied',
    );
  });

  it('the tracker may only put the sending records beside the ISDOCs: no ISDOC, no read, nothing elsewhere', async () => {
    const isdoc = `${ARN.archiveBucket}/isdoc/default/IssuedInvoice/2026/03/FV1_1f.isdoc`;
    const path = 'Scheduled-track-einvoices';
    expect(await decide(path, 's3:PutObject', `${isdoc}.51.einvoice.json`)).toBe('Allowed');
    expect(await decide(path, 's3:PutObject', isdoc)).toBe('ImplicitlyDenied');
    expect(await decide(path, 's3:GetObject', `${isdoc}.51.einvoice.json`)).toBe('ImplicitlyDenied');
    expect(await decide(path, 's3:PutObject', `${ARN.archiveBucket}/other/x.einvoice.json`)).toBe(
      'ImplicitlyDenied',
    );
    expect(await decide(path, 's3:ListBucket', ARN.archiveBucket)).toBe('ImplicitlyDenied');
  });

  it('the readiness report may only put under reports/einvoicing/ of the archive bucket', async () => {
    const path = 'Scheduled-report-einvoicing-readiness';
    const report = `${ARN.archiveBucket}/reports/einvoicing/default/2026-12-01.json`;
    expect(await decide(path, 's3:PutObject', report)).toBe('Allowed');
    expect(await decide(path, 's3:GetObject', report)).toBe('ImplicitlyDenied');
    expect(await decide(path, 's3:PutObject', `${ARN.archiveBucket}/isdoc/default/x.isdoc`)).toBe(
      'ImplicitlyDenied',
    );
    expect(await decide(path, 's3:PutObject', `${ARN.archiveBucket}/reports/other/x.json`)).toBe(
      'ImplicitlyDenied',
    );
  });

  it('the archive may HEAD a new isdoc/ key and list its bucket without a prefix, and nothing outside isdoc/', async () => {
    const key = `${ARN.archiveBucket}/isdoc/default/IssuedInvoices/2026/x.isdoc`;
    expect(await decide('Route-archive-isdoc', 's3:GetObject', key)).toBe('Allowed');
    expect(await decide('Route-archive-isdoc', 's3:ListBucket', ARN.archiveBucket)).toBe('Allowed');
    expect(await decide('Route-archive-isdoc', 's3:PutObject', `${ARN.archiveBucket}/other/x`)).toBe(
      'ImplicitlyDenied',
    );
  });
});

describe('PutEvents with multi-valued source and detail-type', () => {
  const put = (path: string, source: string[], detailType: string[]) =>
    decide(path, 'events:PutEvents', ARN.eventBus, {
      'events:source': source,
      'events:detail-type': detailType,
    });

  it('the poller puts a batch of its own change events', async () => {
    expect(
      await put('Poller', ['accounting.default'], ['IssuedInvoice.Created', 'ReceivedOrder.Deleted']),
    ).toBe('Allowed');
  });

  it('one forged entry in a batch, a forged source, or a request without the keys is denied', async () => {
    expect(await put('Poller', ['accounting.default', 'accounting.other'], ['IssuedInvoice.Created'])).toBe(
      'ImplicitlyDenied',
    );
    expect(await put('Poller', ['accounting.other'], ['IssuedInvoice.Created'])).toBe('ImplicitlyDenied');
    expect(await put('Poller', ['accounting.default'], ['IssuedInvoice.Created', 'Action.Failed'])).toBe(
      'ImplicitlyDenied',
    );
    expect(await decide('Poller', 'events:PutEvents', ARN.eventBus, {})).toBe('ImplicitlyDenied');
  });

  it('an action puts its outcomes and Action.Failed, not a change event', async () => {
    const route = t.routes.find((r) => r.handler === 'archive-isdoc')!;
    const path = `Route-${route.id}`;
    expect(await put(path, ['accounting.default'], [route.outcomes[0]!, 'Action.Failed'])).toBe('Allowed');
    expect(await put(path, ['accounting.default'], ['IssuedInvoice.Created'])).toBe('ImplicitlyDenied');
  });
});

describe('secrets', () => {
  it('GetSecretValue on the credentials secret; DescribeSecret nowhere', async () => {
    const secret = ARN.credentialsSecret;
    for (const path of ['Poller', 'Route-archive-isdoc', 'Scheduled-track-einvoices']) {
      expect(await decide(path, 'secretsmanager:GetSecretValue', secret), path).toBe('Allowed');
      expect(await decide(path, 'secretsmanager:DescribeSecret', secret), path).toBe('ImplicitlyDenied');
    }
  });
});
