/**
 * The stores of the action functions on AWS (idempotency table, action state table, archive
 * bucket), each built on first use from the name the configuration gives it; shared by every
 * connection a function serves (their keys name the connection).
 */
import type { AwsAdapters } from '../adapters/aws/adapter-config.js';
import { createDynamoDbCheckpointStore } from '../adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '../adapters/aws/powertools-idempotency-guard.js';
import type { ActionStores } from '../core/actions/action-definition.js';
import type { ActionsConfig } from '../core/actions/config.js';
import type { OpenSendings } from '../core/actions/open-sendings.js';
import { ENV } from '../shared/env-names.js';

/** The stores on AWS, each built on first use from the table or bucket the configuration names. */
export function awsStores(actions: ActionsConfig, aws: AwsAdapters): ActionStores {
  const name = (value: string | undefined, variable: string): string => {
    if (!value) throw new Error(`${variable}: not configured for this function`);
    return value;
  };
  let guard: ActionStores['idempotency'] | undefined;
  let sendings: ActionStores['actionState'] | undefined;
  let archive: ActionStores['archive'] | undefined;
  return {
    get idempotency() {
      guard ??= createPowertoolsGuard({
        client: aws.clients.dynamoDb,
        tableName: name(actions.idempotency.tableName, ENV.actionsIdempotencyTable),
        expiresAfterSeconds: actions.idempotency.expiresAfterSeconds,
      });
      return guard;
    },
    get actionState() {
      sendings ??= createDynamoDbCheckpointStore<OpenSendings>({
        client: aws.clients.dynamoDb,
        tableName: name(actions.stateTable, ENV.actionsStateTable),
      });
      return sendings;
    },
    get archive() {
      archive ??= aws.objectStore(name(actions.archiveBucket, ENV.actionsArchiveBucket));
      return archive;
    },
    // The same bucket; the tracker's role may only put the sending records' keys there.
    get sendingRecords() {
      return this.archive;
    },
    // The same bucket; the report's role may only put keys under reports/einvoicing/ there.
    get reports() {
      return this.archive;
    },
  };
}
