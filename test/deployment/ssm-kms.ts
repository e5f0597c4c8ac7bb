/**
 * SSM Parameter Store and KMS as a deployed function meets them, decided by IAM like every other
 * call. `GetParameter(s)` reads the template's parameters and those the test put; a SecureString
 * read with decryption is also a `kms:Decrypt` of its key on the caller's behalf through SSM
 * (`kms:ViaService`), decided against the key's policy — the AWS managed key `aws/ssm` with the
 * policy AWS gives it (any principal of the account, through SSM), or a key of the template.
 * SSM's own decryption carries the encryption context it sets, `PARAMETER_ARN`. KMS `Encrypt`,
 * `Decrypt` and `GenerateDataKey` on a key of the template are decided against its key policy and
 * the caller's role, with the request's `EncryptionContext` as `kms:EncryptionContext:<key>`; the
 * ciphertext is bound to that context (decrypting with another is `InvalidCiphertextException`) and
 * otherwise only has to round-trip here.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ACCOUNT, type Assembly, type Json, REGION } from './assembly.js';
import { jsonError, jsonOk } from './aws-wire.js';
import type { Authorizer, Principal } from './iam.js';

export const SSM_MANAGED_KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/aws-ssm-managed-key`;

/** The key policy AWS gives an AWS managed key: every principal of the account, through its service. */
const managedKeyPolicy = (service: string) => ({
  Version: '2012-10-17',
  Statement: [
    {
      Sid: 'Allow access through the service for all principals in the account',
      Effect: 'Allow',
      Principal: { AWS: '*' },
      Action: ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:DescribeKey'],
      Resource: '*',
      Condition: {
        StringEquals: {
          'kms:CallerAccount': ACCOUNT,
          'kms:ViaService': `${service}.${REGION}.amazonaws.com`,
        },
      },
    },
  ],
});

interface Parameter {
  readonly name: string;
  readonly value: string;
  readonly type: 'String' | 'StringList' | 'SecureString';
  readonly keyArn: string;
}

const parameterArn = (name: string) =>
  `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter${name.startsWith('/') ? '' : '/'}${name}`;

export class SsmAndKms {
  private readonly parameters = new Map<string, Parameter>();

  constructor(
    private readonly assembly: Assembly,
    private readonly authorizer: Authorizer,
    private readonly unsupported: string[],
  ) {
    authorizer.addResourcePolicy(SSM_MANAGED_KEY, managedKeyPolicy('ssm'));
    for (const r of assembly.byType('AWS::SSM::Parameter')) {
      const p = assembly.props(r);
      this.put(p.Name ?? r.ref, String(p.Value), p.Type ?? 'String');
    }
  }

  /** A parameter (a SecureString is encrypted with `aws/ssm` unless a template key is named). */
  put(name: string, value: string, type: Parameter['type'] = 'String', keyArn = SSM_MANAGED_KEY): void {
    this.parameters.set(name, { name, value, type, keyArn });
  }

  async handle(
    service: string,
    who: Principal,
    target: string,
    body: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const operation = target.split('.')[1] ?? '';
    const input = JSON.parse(body.toString('utf8') || '{}') as Json;
    if (service === 'ssm' && (operation === 'GetParameters' || operation === 'GetParameter'))
      return this.getParameters(who, operation, input, res);
    if (service === 'kms' && ['Encrypt', 'Decrypt', 'GenerateDataKey'].includes(operation))
      return this.kms(who, operation, input, res);
    this.unsupported.push(`${who.caller} ${service} ${operation}`);
    return jsonError(
      res,
      400,
      'UnknownOperationException',
      `${service} ${operation} is not served by the stand-in`,
    );
  }

  private async getParameters(who: Principal, operation: string, input: Json, res: ServerResponse) {
    const names: string[] = operation === 'GetParameter' ? [input.Name] : input.Names;
    const found: Json[] = [];
    const invalid: string[] = [];
    for (const name of names) {
      const decision = await this.authorizer.authorize(who, `ssm:${operation}`, parameterArn(name));
      if (decision.decision !== 'Allowed')
        return jsonError(
          res,
          400,
          'AccessDeniedException',
          `User: ${who.principal} is not authorized to perform: ssm:${operation} on resource: ${parameterArn(name)}`,
        );
      const p = this.parameters.get(name);
      if (!p) {
        invalid.push(name);
        continue;
      }
      let value = p.value;
      if (p.type === 'SecureString') {
        if (input.WithDecryption) {
          // SSM decrypts each SecureString on the caller's behalf, with the parameter's ARN as
          // the encryption context (what a key policy or grant may condition on).
          const kms = await this.authorizer.authorize(who, 'kms:Decrypt', p.keyArn, {
            'kms:ViaService': `ssm.${REGION}.amazonaws.com`,
            'kms:CallerAccount': ACCOUNT,
            'kms:EncryptionContext:PARAMETER_ARN': parameterArn(p.name),
            'kms:EncryptionContextKeys': ['PARAMETER_ARN'],
          });
          if (kms.decision !== 'Allowed')
            return jsonError(
              res,
              400,
              'AccessDeniedException',
              `User: ${who.principal} is not authorized to perform: kms:Decrypt on resource: ${p.keyArn}`,
            );
        } else value = Buffer.from(value).toString('base64');
      }
      found.push({
        Name: p.name,
        Type: p.type,
        Value: value,
        Version: 1,
        ARN: parameterArn(p.name),
        DataType: 'text',
      });
    }
    if (operation === 'GetParameter') {
      if (!found[0]) return jsonError(res, 400, 'ParameterNotFound', `${input.Name}`);
      return jsonOk(res, { Parameter: found[0] });
    }
    return jsonOk(res, { Parameters: found, InvalidParameters: invalid });
  }

  private keyArn(keyId: string): string | undefined {
    if (keyId.startsWith('arn:aws:kms:') && keyId.includes(':key/')) return keyId;
    return this.assembly.byType('AWS::KMS::Key').find((k) => k.ref === keyId || k.attributes.Arn === keyId)
      ?.attributes.Arn;
  }

  private async kms(who: Principal, operation: string, input: Json, res: ServerResponse) {
    const blob =
      operation === 'Decrypt' ? Buffer.from(String(input.CiphertextBlob), 'base64').toString('utf8') : '';
    const keyId = operation === 'Decrypt' ? (input.KeyId ?? blob.split('|')[0]) : input.KeyId;
    const arn = this.keyArn(String(keyId));
    if (!arn) return jsonError(res, 400, 'NotFoundException', `key ${keyId} is not in the template`);
    // The encryption context is bound to the ciphertext and offered to the policies as condition keys.
    const context = (input.EncryptionContext ?? {}) as Record<string, string>;
    const contextKeys = Object.fromEntries(
      Object.entries(context).map(([k, v]) => [`kms:EncryptionContext:${k}`, String(v)]),
    );
    const decision = await this.authorizer.authorize(who, `kms:${operation}`, arn, {
      'kms:CallerAccount': ACCOUNT,
      ...contextKeys,
      ...(Object.keys(context).length > 0
        ? { 'kms:EncryptionContextKeys': Object.keys(context).sort() }
        : {}),
    });
    if (decision.decision !== 'Allowed')
      return jsonError(
        res,
        400,
        'AccessDeniedException',
        `User: ${who.principal} is not authorized to perform: kms:${operation} on resource: ${arn}`,
      );
    const bound = JSON.stringify(Object.entries(context).sort());
    const seal = (plain: Buffer) =>
      Buffer.from(`${arn}|${plain.toString('base64')}|${Buffer.from(bound).toString('base64')}`).toString(
        'base64',
      );
    if (operation === 'Encrypt')
      return jsonOk(res, {
        KeyId: arn,
        CiphertextBlob: seal(Buffer.from(String(input.Plaintext), 'base64')),
      });
    if (operation === 'Decrypt') {
      const [, plain, sealedContext] = blob.split('|');
      // Another context than the one it was encrypted with: KMS cannot decrypt it.
      if (Buffer.from(sealedContext ?? '', 'base64').toString('utf8') !== bound)
        return jsonError(res, 400, 'InvalidCiphertextException', 'the encryption context does not match');
      return jsonOk(res, { KeyId: arn, Plaintext: plain });
    }
    const plain = randomBytes(Number(input.NumberOfBytes ?? 32));
    return jsonOk(res, { KeyId: arn, Plaintext: plain.toString('base64'), CiphertextBlob: seal(plain) });
  }
}
