/**
 * A connection's `SecretSource`, from its entry's `credentialsSecret`: `env:NAME` reads the
 * credentials JSON from that environment variable (locally), `ssm:/NAME` the SSM Parameter Store
 * SecureString (fetched in batches of ten with the other connections'), an ARN or a name reads the
 * Secrets Manager secret (cached, read again after the service refused the credentials), `sealed:…`
 * opens the credentials sealed in the entry with the deployment's data key. Every failure is
 * a `ConnectionSecretError` naming the connection and the reference — never the value. A
 * Secrets Manager secret's value is cached per secret by the resolver (see below):
 *
 *   const secrets = createConnectionSecretResolver({ env: process.env, clock: systemClock });
 *   const values = await secrets.sourceFor(entry).get();
 *   const client = createAccountingClient(connectionAccountingConfig(entry, values, process.env));
 */
import { ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { type ConnectionEntry, secretReferenceProblem } from '../core/connections/connection-entry.js';
import {
  ConnectionSecretError,
  parseCredentialsJson,
  parseSecretReference,
} from '../core/connections/connection-secret.js';
import {
  openSealedCredentials,
  SealedCredentialsError,
  type SealedReference,
  sealedReferenceLabel,
} from '../core/connections/sealed-credentials.js';
import type { Clock, SecretSource } from '../core/ports.js';
import { ENV } from '../shared/env-names.js';
import { createSealingKeys, SealingKeyError, type SealingKeys } from './aws/sealing-keys.js';
import { createSecretsManagerSource, SecretFormatError } from './aws/secrets-manager-source.js';
import {
  createSsmParameterStore,
  ParameterNotFoundError,
  type SsmParameterStore,
} from './aws/ssm-parameter-store.js';

export interface ConnectionSecretResolverOptions {
  /** Where `env:NAME` references are read (`process.env`, or a parsed `.env` over it). */
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** How long a Secrets Manager secret is reused; default 300 s. */
  ttlMs?: number;
  /** The Secrets Manager client; one is made (default region and credentials) on first use when omitted. */
  secretsManager?: SecretsManagerClient;
  /** The SSM client of `ssm:` references; one is made on first use when omitted. */
  ssm?: SSMClient;
  /**
   * Whether the `deployment` reference resolves: only the single-company deployment's own entry
   * (the environment-backed registry) may use the deployment's credentials. Default false.
   */
  deploymentCredentials?: boolean;
}

/** What the deployment's own credentials are made of: in `env`, or in the secret it names. */
const DEPLOYMENT_CREDENTIAL_NAMES = [ENV.apiKey, ENV.clientId, ENV.clientSecret, ENV.scope] as const;

export interface ConnectionSecretResolver {
  /** The credentials source of one connection (nothing is read before its `get`). */
  sourceFor(entry: Pick<ConnectionEntry, 'name' | 'credentialsSecret'>): SecretSource;
}

function envSource(
  connection: string,
  reference: string,
  variable: string,
  env: Readonly<Record<string, string | undefined>>,
): SecretSource {
  const get = async (): Promise<Record<string, string>> => {
    const text = env[variable];
    if (text === undefined || text.trim() === '') {
      throw new ConnectionSecretError(
        connection,
        reference,
        `names the environment variable ${variable}, which is not set`,
      );
    }
    const parsed = parseCredentialsJson(text);
    if (!parsed.ok) throw new ConnectionSecretError(connection, reference, parsed.problem);
    return parsed.values;
  };
  return { get, refresh: get };
}

/** Maps what Secrets Manager (or the secret's content) refused to an error naming the connection. */
function explain(connection: string, reference: string, error: unknown): ConnectionSecretError {
  if (error instanceof SecretFormatError) {
    return new ConnectionSecretError(connection, reference, error.detail);
  }
  if (error instanceof ResourceNotFoundException) {
    return new ConnectionSecretError(connection, reference, 'does not exist in Secrets Manager', {
      cause: error,
    });
  }
  const name = error instanceof Error ? error.name : 'Error';
  return new ConnectionSecretError(
    connection,
    reference,
    `could not be read from Secrets Manager (${name})`,
    { cause: error },
  );
}

/** A source whose every read fails with `error` (nothing is read). */
function refusedSource(error: ConnectionSecretError): SecretSource {
  const refuse = () => Promise.reject(error);
  return { get: refuse, refresh: refuse };
}

/**
 * The deployment's own credentials: the secret `ACCOUNTING_CREDENTIALS_SECRET` names (read through
 * `secret`), else the credential variables of `env` (with `ACCOUNTING_PATH_OVERRIDES`, a setting of
 * the deployment's one service). Only for the single-company deployment's own entry.
 */
function deploymentSource(
  env: Readonly<Record<string, string | undefined>>,
  secret: (secretId: string) => SecretSource,
): SecretSource {
  const secretId = env[ENV.credentialsSecret]?.trim();
  const overrides = env[ENV.pathOverrides]?.trim();
  const withOverrides = (values: Record<string, string>) =>
    overrides ? { ...values, [ENV.pathOverrides]: overrides } : values;
  if (secretId) {
    const source = secret(secretId);
    return {
      get: async () => withOverrides(await source.get()),
      refresh: async () => withOverrides(await (source.refresh ?? source.get)()),
    };
  }
  const get = async () =>
    withOverrides(
      Object.fromEntries(
        DEPLOYMENT_CREDENTIAL_NAMES.flatMap((key) => {
          const value = env[key];
          return value !== undefined && value.trim() !== '' ? [[key, value]] : [];
        }),
      ),
    );
  return { get, refresh: get };
}

/**
 * An SSM SecureString parameter holding the credentials JSON: read in batches with the other
 * connections' (ten per `GetParameters`), cached by the store.
 */
function parameterSource(
  store: SsmParameterStore,
  name: string,
  reference: string,
  parameter: string,
): SecretSource {
  const read = (fresh: boolean) => async () => {
    let text: string;
    try {
      text = await store.get(parameter, { fresh });
    } catch (error) {
      if (error instanceof ParameterNotFoundError)
        throw new ConnectionSecretError(name, reference, 'does not exist in Parameter Store', {
          cause: error,
        });
      const kind = error instanceof Error ? error.name : 'Error';
      throw new ConnectionSecretError(name, reference, `could not be read from Parameter Store (${kind})`, {
        cause: error,
      });
    }
    const parsed = parseCredentialsJson(text);
    if (!parsed.ok) throw new ConnectionSecretError(name, reference, parsed.problem);
    return parsed.values;
  };
  return { get: read(false), refresh: read(true) };
}

/**
 * Credentials sealed in the entry itself (`sealed:<keyId>:…`): opened with the data key its key id
 * names, which the container reads once (`sealing-keys.ts`). A wrong key, another connection's
 * value or an altered one is a `ConnectionSecretError` like any unreadable secret (the connection
 * turns unhealthy); messages show `sealed:<keyId>:…`, never the ciphertext.
 */
function sealedSource(
  keys: () => SealingKeys | undefined,
  name: string,
  reference: string,
  sealed: SealedReference | undefined,
): SecretSource {
  const label = sealedReferenceLabel(reference);
  const open = async (): Promise<Record<string, string>> => {
    if (!sealed) throw new ConnectionSecretError(name, label, 'is not a sealed value');
    const store = keys();
    if (!store)
      throw new ConnectionSecretError(
        name,
        label,
        `cannot be opened here: no sealing keys (${ENV.sealingKeysPath} is not set)`,
      );
    let text: string;
    try {
      text = openSealedCredentials(name, sealed, await store.dataKey(sealed.keyId));
    } catch (error) {
      if (error instanceof SealingKeyError)
        throw new ConnectionSecretError(
          name,
          label,
          `needs sealing key '${error.keyId}', which ${error.problem}`,
          {
            cause: error,
          },
        );
      if (error instanceof SealedCredentialsError)
        throw new ConnectionSecretError(name, label, error.message, { cause: error });
      throw error;
    }
    const parsed = parseCredentialsJson(text);
    if (!parsed.ok) throw new ConnectionSecretError(name, label, parsed.problem);
    return parsed.values;
  };
  return { get: open, refresh: open };
}

/** Secrets Manager secrets whose cache a resolver keeps, least recently used dropped first. */
export const MAX_CACHED_SECRETS = 10_000;

/**
 * Secrets Manager secrets are cached per secret for `ttlMs` by the resolver itself, not by the
 * client built from them: a connection whose client was closed (the client cache is small) or
 * is built again finds its secret still cached, so a container reads each secret at most once
 * per `ttlMs` — and again at once after the service refused the credentials (`refresh`).
 */
export function createConnectionSecretResolver(
  options: ConnectionSecretResolverOptions,
): ConnectionSecretResolver {
  let client = options.secretsManager;
  const cached = new Map<string, SecretSource>();
  const sourceOf = (secretId: string): SecretSource => {
    let source = cached.get(secretId);
    cached.delete(secretId);
    client ??= new SecretsManagerClient({});
    source ??= createSecretsManagerSource({
      client,
      secretId,
      ttlMs: options.ttlMs ?? 300_000,
      clock: options.clock,
    });
    cached.set(secretId, source); // most recently used last
    if (cached.size > MAX_CACHED_SECRETS) cached.delete(cached.keys().next().value as string);
    return source;
  };
  const guardedSecret = (name: string, reference: string, secretId: string): SecretSource => {
    const source = sourceOf(secretId);
    const guarded = (read: () => Promise<Record<string, string>>) => () =>
      read().catch((error: unknown) => Promise.reject(explain(name, reference, error)));
    return { get: guarded(source.get), refresh: guarded(source.refresh ?? source.get) };
  };
  let parameters: SsmParameterStore | undefined;
  const parameterStore = (): SsmParameterStore => {
    parameters ??= createSsmParameterStore({
      client: options.ssm ?? new SSMClient({}),
      clock: options.clock,
      ttlMs: options.ttlMs ?? 300_000,
    });
    return parameters;
  };
  let sealingKeys: SealingKeys | undefined;
  // Read only when a sealed reference is opened (no other reference reads the variable).
  const keys = (): SealingKeys | undefined => {
    const path = options.env[ENV.sealingKeysPath]?.trim();
    if (!path) return undefined;
    sealingKeys ??= createSealingKeys({ store: parameterStore(), path });
    return sealingKeys;
  };
  return {
    sourceFor({ name, credentialsSecret }) {
      // Another connection's secret is refused before any read (an entry validated elsewhere, or none).
      const problem = secretReferenceProblem(name, credentialsSecret);
      if (problem)
        return refusedSource(
          new ConnectionSecretError(name, sealedReferenceLabel(credentialsSecret), problem),
        );
      const reference = parseSecretReference(credentialsSecret);
      if (reference.kind === 'deployment') {
        return options.deploymentCredentials
          ? deploymentSource(options.env, (secretId) => guardedSecret(name, credentialsSecret, secretId))
          : refusedSource(
              new ConnectionSecretError(
                name,
                credentialsSecret,
                "is the single-company deployment's own credentials; a registry entry names its own secret",
              ),
            );
      }
      if (reference.kind === 'sealed') return sealedSource(keys, name, credentialsSecret, reference.sealed);
      if (reference.kind === 'ssm') {
        return parameterSource(parameterStore(), name, credentialsSecret, reference.parameter);
      }
      if (reference.kind === 'env')
        return envSource(name, credentialsSecret, reference.variable, options.env);
      return guardedSecret(name, credentialsSecret, reference.secretId);
    },
  };
}
