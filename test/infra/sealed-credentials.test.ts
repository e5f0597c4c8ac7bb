/**
 * Sealed credentials in the templates: the KMS key of the data keys (stateful, rotation on, the
 * alias the CLI encrypts with, retained), and the functions serving connections allowed only to
 * read the data keys' parameters and to have that key decrypt them through SSM for those
 * parameters — no function may encrypt or make data keys with it. A single-company deployment has
 * neither.
 */
import { describe, expect, it } from 'vitest';
import { ENV } from '#functions/shared/env-names.js';
import { buildTestApp, nagFindings } from './support.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };
type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, unknown> };

const t = buildTestApp({ connectionRegistry: true });
const stateful = t.statefulTemplate.toJSON() as { Resources: Record<string, Resource>; Outputs: object };
const stateless = t.statelessTemplate.toJSON().Resources as Record<string, Resource>;
const PATH = '/accounting-events-prod/sealing-keys';

const statements = (): Statement[] =>
  Object.values(stateless)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
const kmsStatements = () => statements().filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:')));

describe('sealed credentials: the key', () => {
  it('one KMS key with rotation on, the alias alias/<prefix>/sealing-keys, retained, its path an output', () => {
    const keys = Object.values(stateful.Resources).filter((r) => r.Type === 'AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    expect(keys[0]?.Properties.EnableKeyRotation).toBe(true);
    expect(keys[0]?.DeletionPolicy).toBe('Retain');
    t.statefulTemplate.hasResourceProperties('AWS::KMS::Alias', { AliasName: `alias${PATH}` });
    expect(JSON.stringify(stateful.Outputs)).toContain(PATH);
    expect(nagFindings(t.app).errors).toEqual([]);
  });

  it('a single-company deployment has no sealing key', () => {
    const single = buildTestApp().statefulTemplate.toJSON().Resources as Record<string, Resource>;
    expect(Object.values(single).filter((r) => r.Type === 'AWS::KMS::Key')).toEqual([]);
  });
});

describe('sealed credentials: the grants', () => {
  it('functions may only Decrypt, through SSM, for the data keys’ parameters', () => {
    const sealing = kmsStatements().filter((s) => JSON.stringify(s.Resource).includes('SealingKey'));
    // The poller and every function serving connections; each with the same one statement.
    expect(sealing.length).toBeGreaterThan(1);
    for (const s of sealing) {
      expect(s.Action).toBe('kms:Decrypt');
      expect(s.Condition).toEqual({
        StringEquals: { 'kms:ViaService': 'ssm.eu-central-1.amazonaws.com' },
        StringLike: {
          'kms:EncryptionContext:PARAMETER_ARN': `arn:aws:ssm:eu-central-1:111111111111:parameter${PATH}/*`,
        },
      });
    }
    const writes = statements().filter((s) =>
      [s.Action]
        .flat()
        .some((a) => /^kms:(Encrypt|GenerateDataKey|ReEncrypt|\*)/.test(a) || a === 'ssm:PutParameter'),
    );
    expect(writes.filter((s) => JSON.stringify(s.Resource).includes('SealingKey'))).toEqual([]);
    expect(writes.filter((s) => JSON.stringify(s.Resource).includes('sealing-keys'))).toEqual([]);
  });

  it('the functions reading the data keys are told where they are', () => {
    const readers = statements().filter(
      (s) => s.Action === 'ssm:GetParameters' && JSON.stringify(s.Resource).includes(`:parameter${PATH}/*`),
    );
    expect(readers.length).toBeGreaterThan(1);
    const told = Object.values(stateless).filter(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        (r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.[
          ENV.sealingKeysPath
        ] === PATH,
    );
    expect(told.length).toBe(readers.length);
  });
});
