/** Names the configuration gives: physical name prefix, event sources, connection secrets. */
import { CONNECTION_SOURCE_PREFIX, connectionEventSource } from '#functions/core/connection.js';
import type { InfraConfig } from './schema.js';

/** Prefix of every physical name. */
export function namePrefix(config: Pick<InfraConfig, 'stage'>): string {
  return `accounting-events-${config.stage}`;
}

/** Prefix of the Secrets Manager secrets the connection poller may read (`<prefix>/connections/<name>`). */
export function connectionSecretsPrefix(config: Pick<InfraConfig, 'stage'>): string {
  return `${namePrefix(config)}/connections/`;
}

/** `accounting.<connection>`: the `source` of every event the poller publishes. */
export function eventSourceOf(config: Pick<InfraConfig, 'connection'>): string {
  return connectionEventSource({ name: config.connection });
}

/**
 * The `source` values the deployment's rules match: its connection's, or with the connection
 * registry every connection's (`{ prefix: 'accounting.' }`, as EventBridge reads a pattern).
 */
export function ruleSourcesOf(config: Pick<InfraConfig, 'connection' | 'connectionRegistry'>): string[] {
  return config.connectionRegistry
    ? ([{ prefix: CONNECTION_SOURCE_PREFIX }] as unknown as string[])
    : [eventSourceOf(config)];
}
