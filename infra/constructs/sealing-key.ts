/**
 * Sealed connection credentials (docs/connections.md): the registry entry holds its credentials
 * sealed with a data key; each data key is an SSM SecureString `/<prefix>/sealing-keys/<keyId>`
 * encrypted with this KMS key (rotation on). The functions serving connections may read those
 * parameters and have this key decrypt them through SSM for exactly those parameters (the
 * encryption context SSM sets, `PARAMETER_ARN`); nothing deployed may encrypt with it — making a
 * data key is `connections add --seal-credentials`, run with the IAM docs/connections.md lists.
 */
import { CfnOutput, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { ENV } from '#functions/shared/env-names.js';
import { namePrefix } from '../config/names.js';
import type { InfraConfig } from '../config/schema.js';
import { acknowledgeWildcardResource } from './acknowledge-wildcards.js';
import type { AppFunction } from './app-function.js';

/** SSM path of the data keys: `/<prefix>/sealing-keys` (`<path>/<keyId>`). */
export function sealingKeysPath(config: Pick<InfraConfig, 'stage'>): string {
  return `/${namePrefix(config)}/sealing-keys`;
}

/** The KMS key that encrypts the data keys, with the alias `alias/<prefix>/sealing-keys`. */
export function createSealingKey(
  scope: Construct,
  config: Pick<InfraConfig, 'stage'>,
  removalPolicy: RemovalPolicy,
): kms.Key {
  const path = sealingKeysPath(config);
  const key = new kms.Key(scope, 'SealingKey', {
    description: `Encrypts the data keys of sealed connection credentials (SSM ${path}/*)`,
    enableKeyRotation: true,
    pendingWindow: Duration.days(30),
    alias: `alias${path}`,
    removalPolicy,
  });
  new CfnOutput(scope, 'SealingKeysPath', {
    value: path,
    description: 'connections add --seal-credentials FILE --sealing-keys <this>',
  });
  return key;
}

/**
 * `fn` opens sealed credentials: `ssm:GetParameters` on the data keys' parameters, and
 * `kms:Decrypt` with the sealing key only through SSM and only for those parameters.
 */
export function grantSealedCredentialsRead(
  fn: AppFunction,
  key: kms.IKey | undefined,
  config: Pick<InfraConfig, 'stage'>,
): void {
  if (!key) return;
  const path = sealingKeysPath(config);
  const stack = Stack.of(fn.function);
  const parameters = stack.formatArn({
    service: 'ssm',
    resource: 'parameter',
    resourceName: `${path.slice(1)}/*`,
  });
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['ssm:GetParameters'], resources: [parameters] }),
  );
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['kms:Decrypt'],
      resources: [key.keyArn],
      conditions: {
        StringEquals: { 'kms:ViaService': `ssm.${stack.region}.amazonaws.com` },
        StringLike: { 'kms:EncryptionContext:PARAMETER_ARN': parameters },
      },
    }),
  );
  acknowledgeWildcardResource(
    fn.role,
    parameters,
    `The data keys of sealed connection credentials are SSM parameters under ${path} (docs/connections.md); the function may read those and no other parameter.`,
  );
  fn.setEnv(ENV.sealingKeysPath, path);
}
