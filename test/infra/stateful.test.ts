import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './support.js';

let t: TestApp;
const tempDirs: string[] = [];
beforeAll(() => {
  t = buildTestApp();
});
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

const bucketOf = (app: TestApp, path: 'ArchiveBucket' | 'ClaimCheckBucket') => {
  const id = app.stateful.resolve(
    (app.stateful.node.findChild(path).node.defaultChild as unknown as { logicalId: string }).logicalId,
  ) as string;
  return (app.statefulTemplate.toJSON().Resources as Record<string, { Properties: Record<string, unknown> }>)[
    id
  ]!.Properties;
};

describe('tables', () => {
  it('checkpoints, idempotency and action state: on-demand, PITR, TTL, the adapters’ keys', () => {
    t.statefulTemplate.resourceCountIs('AWS::DynamoDB::Table', 3);
    for (const [key, ttl] of [
      ['pk', 'ttl'],
      ['id', 'expiration'],
    ]) {
      t.statefulTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        TimeToLiveSpecification: { AttributeName: ttl, Enabled: true },
      });
    }
    t.statefulTemplate.allResourcesProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
  });
});

describe('buckets', () => {
  it('archive: versioned, encrypted, private, Object Lock GOVERNANCE 10 years, colder classes, access logs', () => {
    expect(bucketOf(t, 'ArchiveBucket')).toMatchObject({
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        // 10 years after the end of the document's year: 11 calendar years with their 3 possible leap days.
        Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 11 * 365 + 3 } },
      },
      LoggingConfiguration: { LogFilePrefix: 'archive/' },
    });
  });

  it('archive: transitions only objects over 128 KiB (S3 moves no smaller one); aborts stale uploads in a rule of its own', () => {
    const rules = (
      bucketOf(t, 'ArchiveBucket').LifecycleConfiguration as { Rules: Record<string, unknown>[] }
    ).Rules;
    expect(rules).toEqual([
      expect.objectContaining({
        Id: 'colder-storage',
        // A string: CloudFormation's type for it (a number draws a validation warning).
        ObjectSizeGreaterThan: String(128 * 1024),
        Transitions: [
          { StorageClass: 'GLACIER_IR', TransitionInDays: 90 },
          { StorageClass: 'DEEP_ARCHIVE', TransitionInDays: 365 },
        ],
        NoncurrentVersionTransitions: [
          { StorageClass: 'GLACIER_IR', TransitionInDays: 90 },
          { StorageClass: 'DEEP_ARCHIVE', TransitionInDays: 365 },
        ],
      }),
      {
        Id: 'abort-incomplete-uploads',
        Status: 'Enabled',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
      },
    ]);
    // Every rule that transitions filters by size.
    for (const rule of rules.filter((r) => r.Transitions || r.NoncurrentVersionTransitions)) {
      expect(rule.ObjectSizeGreaterThan, String(rule.Id)).toBe(String(128 * 1024));
    }
    const none = buildTestApp({ archiveGlacierIrAfterDays: 0, archiveDeepArchiveAfterDays: 0 });
    expect(
      (bucketOf(none, 'ArchiveBucket').LifecycleConfiguration as { Rules: { Id: string }[] }).Rules.map(
        (r) => r.Id,
      ),
    ).toEqual(['abort-incomplete-uploads']);
  });

  it('every bucket refuses plain HTTP (TLS-only policy)', () => {
    const policies = t.statefulTemplate.findResources('AWS::S3::BucketPolicy');
    expect(Object.keys(policies)).toHaveLength(3);
    t.statefulTemplate.allResourcesProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('claim-check: named in an output (the first deployment checklist looks into it)', () => {
    expect(t.statefulTemplate.toJSON().Outputs).toHaveProperty('ClaimCheckBucketName');
  });

  it('claim-check: objects expire after the configured days', () => {
    expect(bucketOf(t, 'ClaimCheckBucket')).toMatchObject({
      LifecycleConfiguration: {
        Rules: [expect.objectContaining({ ExpirationInDays: 7, Status: 'Enabled' })],
      },
    });
  });

  it('Object Lock per stage: GOVERNANCE for prod, OFF for any other stage, COMPLIANCE only when chosen', () => {
    const dev = buildTestApp({ stage: 'dev' });
    expect(bucketOf(dev, 'ArchiveBucket').ObjectLockEnabled).toBeFalsy();
    expect(bucketOf(dev, 'ArchiveBucket').ObjectLockConfiguration).toBeUndefined();
    const off = buildTestApp({ archiveRetentionMode: 'OFF' });
    expect(bucketOf(off, 'ArchiveBucket').ObjectLockEnabled).toBeFalsy();
    const gov = buildTestApp({ archiveRetentionMode: 'GOVERNANCE', archiveRetentionYears: 7 });
    expect(bucketOf(gov, 'ArchiveBucket').ObjectLockConfiguration).toEqual({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 8 * 365 + 2 } },
    });
    const compliance = buildTestApp({ stage: 'dev', archiveRetentionMode: 'COMPLIANCE' });
    expect(bucketOf(compliance, 'ArchiveBucket').ObjectLockConfiguration).toEqual({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 11 * 365 + 3 } },
    });
    expect(JSON.stringify(t.statefulTemplate.toJSON())).not.toContain('COMPLIANCE');
  });
});

describe('bus, secret, registry', () => {
  it('custom event bus with an archive for replay', () => {
    t.statefulTemplate.hasResourceProperties('AWS::Events::EventBus', { Name: 'accounting-events-prod' });
    t.statefulTemplate.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 30 });
  });

  it('credentials secret documents its JSON shape and holds no value from the template', () => {
    const secret = Object.values(t.statefulTemplate.findResources('AWS::SecretsManager::Secret'))[0]!;
    expect(secret.Properties.Description).toContain('"apiKey"');
    expect(secret.Properties.Description).toContain('"clientSecret"');
    expect(secret.Properties.SecretString).toBeUndefined();
  });

  it('one registry schema per JSON Schema file, converted to draft 4 and wrapped as an event', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schemas-'));
    tempDirs.push(dir);
    writeFileSync(
      join(dir, 'ReceivedOrder.Created.json'),
      JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          version: { const: 1 },
          amount: { type: 'number', exclusiveMinimum: 0 },
          ref: { $ref: '#/$defs/Ref' },
        },
        $defs: { Ref: { type: 'string' } },
      }),
    );
    writeFileSync(join(dir, 'Action.Failed.json'), JSON.stringify({ type: 'object' }));
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const app = buildTestApp({}, { schemasDir: dir });
    app.statefulTemplate.resourceCountIs('AWS::EventSchemas::Schema', 2);
    const schemas = Object.values(app.statefulTemplate.findResources('AWS::EventSchemas::Schema'));
    const created = schemas.find((s) => s.Properties.SchemaName === 'ReceivedOrder.Created')!;
    expect(created.Properties.Type).toBe('JSONSchemaDraft4');
    const content = JSON.parse(created.Properties.Content as string);
    expect(content).toMatchObject({
      $schema: 'http://json-schema.org/draft-04/schema#',
      properties: {
        'detail-type': { enum: ['ReceivedOrder.Created'] },
        detail: {
          properties: {
            version: { enum: [1] },
            amount: { minimum: 0, exclusiveMinimum: true },
            ref: { $ref: '#/definitions/Ref' },
          },
        },
      },
      definitions: { Ref: { type: 'string' } },
    });
  });

  it('an empty or absent schema folder gives an empty registry, not a failed synth', () => {
    const app = buildTestApp({}, { schemasDir: join(tmpdir(), 'no-such-schemas-folder') });
    app.statefulTemplate.resourceCountIs('AWS::EventSchemas::Registry', 1);
    app.statefulTemplate.resourceCountIs('AWS::EventSchemas::Schema', 0);
  });
});
