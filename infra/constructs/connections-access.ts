/**
 * Where the functions find the connections they serve: the deployment's registry of one (its
 * connection, credentials secret and service in each function's environment) or the connection
 * registry (a DynamoDB table, each entry with a secret of its own under `<prefix>/connections/`
 * and a token bucket). Every function that calls the service or publishes as a connection is
 * granted through this one object, so the two cases differ here only.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { IConstruct } from 'constructs';
import { CONNECTION_SOURCE_PREFIX } from '#functions/core/connection.js';
import { CONNECTION_SECRET_CACHE_SECONDS } from '#functions/core/connections/connection-secret.js';
import { ENV } from '#functions/shared/env-names.js';
import { connectionSecretsPrefix, eventSourceOf } from '../config/names.js';
import type { InfraConfig } from '../config/schema.js';
import type { StatefulResources } from '../stacks/stateful-stack.js';
import { acknowledgeWildcardResource } from './acknowledge-wildcards.js';
import type { AppFunction } from './app-function.js';
import { FUNCTION_ENV } from './function-env.js';
import { useSecret } from './grants.js';
import { grantSealedCredentialsRead } from './sealing-key.js';

export interface ConnectionsAccess {
  /** The registry table; absent for the registry of one, which each function reads from its environment. */
  readonly table: dynamodb.ITable | undefined;
  /** The `source` its functions publish as: the connection's, or any connection's (`accounting.*`). */
  readonly publishSource: string;
  /**
   * What a function calling the service for a connection needs: the deployment's credentials
   * secret and service, or a registry entry by name, the token buckets and the secrets or SSM
   * parameters under the connections prefix — no other secret.
   */
  grantConnectionAccess(fn: AppFunction): void;
  /** A registry entry by name, and nothing of the credentials (the intake endpoint); nothing to read in a registry of one. */
  grantRegistryRead(fn: AppFunction): void;
}

/** The registry table of the stateful stack when it has one (`connectionRegistry`), else the registry of one. */
export function connectionsAccessOf(
  scope: IConstruct,
  config: InfraConfig,
  resources: StatefulResources,
): ConnectionsAccess {
  const { connectionsTable, rateLimitTable } = resources;
  if (connectionsTable && rateLimitTable) {
    return new RegistryAccess(scope, config, connectionsTable, rateLimitTable, resources.sealingKey);
  }
  return new OneConnectionAccess(config, resources);
}

class OneConnectionAccess implements ConnectionsAccess {
  readonly table = undefined;
  readonly publishSource: string;

  constructor(
    private readonly config: InfraConfig,
    private readonly resources: StatefulResources,
  ) {
    this.publishSource = eventSourceOf(config);
  }

  grantConnectionAccess(fn: AppFunction): void {
    const { config } = this;
    useSecret(fn, this.resources.credentialsSecret, FUNCTION_ENV.credentialsSecret);
    fn.setEnv(FUNCTION_ENV.serviceVariant, config.serviceVariant);
    if (config.accountingBaseUrl) fn.setEnv(FUNCTION_ENV.baseUrl, config.accountingBaseUrl);
    if (config.accountingAuthUrl) fn.setEnv(FUNCTION_ENV.authUrl, config.accountingAuthUrl);
  }

  grantRegistryRead(): void {}
}

class RegistryAccess implements ConnectionsAccess {
  readonly publishSource = `${CONNECTION_SOURCE_PREFIX}*`;

  constructor(
    private readonly scope: IConstruct,
    private readonly config: InfraConfig,
    readonly table: dynamodb.ITable,
    private readonly rateLimitTable: dynamodb.ITable,
    private readonly sealingKey: kms.IKey | undefined,
  ) {}

  grantConnectionAccess(fn: AppFunction): void {
    const prefix = connectionSecretsPrefix(this.config);
    this.grantRegistryRead(fn);
    this.rateLimitTable.grant(fn.function, 'dynamodb:GetItem', 'dynamodb:PutItem');
    fn.setEnv(ENV.rateLimitTable, this.rateLimitTable.tableName);
    fn.setEnv(ENV.credentialsCacheSeconds, String(CONNECTION_SECRET_CACHE_SECONDS));
    const secrets = Stack.of(this.scope).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${prefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secrets] }),
    );
    acknowledgeWildcardResource(
      fn.role,
      secrets,
      `Each connection's credentials are a secret of its own, named under ${prefix} (docs/deploy.md); the function may read those and no other secret.`,
    );
    // Or an SSM Parameter Store SecureString `/<prefix>/connections/<name>` (`ssm:` references),
    // read ten at a time; the AWS managed key `aws/ssm` decrypts it on the function's behalf.
    const parameters = Stack.of(this.scope).formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: `${prefix}*`,
    });
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['ssm:GetParameters'], resources: [parameters] }),
    );
    acknowledgeWildcardResource(
      fn.role,
      parameters,
      `Each connection's credentials may be an SSM parameter of its own under /${prefix} (docs/deploy.md); the function may read those and no other parameter.`,
    );
    // Or sealed in the entry (`sealed:` references), opened with a data key read once per container.
    grantSealedCredentialsRead(fn, this.sealingKey, this.config);
  }

  grantRegistryRead(fn: AppFunction): void {
    this.table.grant(fn.function, 'dynamodb:GetItem');
    fn.setEnv(ENV.connectionsTable, this.table.tableName);
  }
}
