/**
 * Which registry the `connections` command works on: the JSON file (`--connections FILE`, default
 * `<data-dir>/connections.json`) or a DynamoDB table (`--table NAME`, with `--region` and
 * `--endpoint`; a loopback endpoint — dynalite, DynamoDB Local — gets fixed local credentials).
 */
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { isLoopbackHost } from '../accounting/config.js';
import { createDynamoDbConnectionRegistry } from '../adapters/aws/dynamodb-connection-registry.js';
import { DYNALITE_CREDENTIALS, EMBEDDED_REGION } from '../adapters/local/embedded-servers.js';
import { createFileConnectionRegistry } from '../adapters/local/file-connection-registry.js';
import type { ConnectionRegistry } from '../core/connections/registry.js';

/** The registry file when neither `--connections` nor `--table` is given, inside the data directory. */
export const CONNECTIONS_FILE = 'connections.json';

export interface RegistryTargetOptions {
  connections?: string | undefined;
  'data-dir': string;
  table?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
}

export interface RegistryTarget {
  registry: ConnectionRegistry;
  /** `file <path>` or `table <name>`, for messages. */
  describe: string;
  /** A Secrets Manager client in the same region (made on first use). */
  secretsManager(): SecretsManagerClient;
  /** An SSM client in the same region (made on first use): `ssm:` references, sealing keys. */
  ssm(): SSMClient;
  close(): void;
}

export function openRegistryTarget(
  options: RegistryTargetOptions,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): RegistryTarget {
  const local = options.endpoint !== undefined && isLoopbackHost(new URL(options.endpoint).hostname);
  const region =
    options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (local ? EMBEDDED_REGION : undefined);
  let secrets: SecretsManagerClient | undefined;
  const secretsManager = () => {
    secrets ??= new SecretsManagerClient(region ? { region } : {});
    return secrets;
  };
  let parameters: SSMClient | undefined;
  const ssm = () => {
    parameters ??= new SSMClient(region ? { region } : {});
    return parameters;
  };
  if (options.table === undefined) {
    const path = resolve(cwd, options.connections ?? resolve(options['data-dir'], CONNECTIONS_FILE));
    return {
      registry: createFileConnectionRegistry({ path }),
      describe: `file ${path}`,
      secretsManager,
      ssm,
      close() {
        secrets?.destroy();
        parameters?.destroy();
      },
    };
  }
  const client = new DynamoDBClient({
    ...(region ? { region } : {}),
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    ...(local ? { credentials: DYNALITE_CREDENTIALS } : {}),
    maxAttempts: 3,
  });
  return {
    registry: createDynamoDbConnectionRegistry({ client, tableName: options.table }),
    describe: `table ${options.table}`,
    secretsManager,
    ssm,
    close() {
      client.destroy();
      secrets?.destroy();
      parameters?.destroy();
    },
  };
}
