/**
 * The stateless stack's functions: one `AppFunction` per handler, with the access its handler
 * declares (functions/core/actions/registry.ts) granted on the stateful resources, and the action
 * settings every action function receives.
 */
import { Annotations, type Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { READINESS_REPORT_PREFIX } from '#functions/core/actions/report-einvoicing-readiness/report-readiness.js';
import { SENDING_RECORD_SUFFIX } from '#functions/core/actions/track-einvoices/sending-record.js';
import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { ENV } from '#functions/shared/env-names.js';
import { idempotencyExpirySeconds } from '#infra/config/replay-horizon.js';
import type { InfraConfig } from '#infra/config/schema.js';
import { AppFunction, retentionOf } from '#infra/constructs/app-function.js';
import { claimCheckAccessOf } from '#infra/constructs/claim-check-access.js';
import type { ConnectionsAccess } from '#infra/constructs/connections-access.js';
import { FUNCTION_ENV } from '#infra/constructs/function-env.js';
import { type PutEventsScope, useBucket, useEventBus, useTable } from '#infra/constructs/grants.js';
import { accessOf, type HandlerAccess } from '#infra/constructs/handler-access.js';
import { METRICS_NAMESPACE } from '#infra/constructs/metric-names.js';
import { ARCHIVE_PREFIX, REJECTED_ARCHIVE_PREFIX, type StatefulResources } from '../stateful-stack.js';

export interface FunctionSpec {
  usedBy: string;
  description: string;
  serviceName: string;
  memorySize: number;
  timeout: Duration;
  reservedConcurrentExecutions?: number;
  /** What the function may put on the bus (with `access.publishEvents`), as its connections' source. */
  publishes?: Omit<PutEventsScope, 'source'>;
}

export class FunctionFactory {
  constructor(
    private readonly scope: Construct,
    private readonly config: InfraConfig,
    private readonly resources: StatefulResources,
    /** The registry of one (the deployment's credentials) or the registry's entries, secrets and token buckets. */
    private readonly connections: ConnectionsAccess,
  ) {}

  /** A function for `handler` with the access its handler declares. */
  appFunction(id: string, handler: string, props: FunctionSpec): AppFunction {
    const { config } = this;
    const { publishes, ...functionProps } = props;
    const fn = new AppFunction(this.scope, id, {
      handler,
      ...functionProps,
      metricsNamespace: METRICS_NAMESPACE,
      logLevel: config.logLevel,
      logRetention: retentionOf(config.logRetentionDays),
      removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    // One connection for the poller and every action: events, checkpoints, archive keys, sendings.
    fn.setEnv(FUNCTION_ENV.connection, config.connection);
    const { access, known } = accessOf(handler);
    if (!known) {
      Annotations.of(fn).addWarningV2(
        'accounting-events:unknownHandlerAccess',
        `handler '${handler}' is neither the poller nor an action of functions/core/actions/registry.ts; it gets the default action access`,
      );
    }
    if (access.accountingApi) this.connections.grantConnectionAccess(fn);
    if (access.publishEvents) {
      useEventBus(fn, this.resources.eventBus, FUNCTION_ENV.eventBusName, {
        source: this.connections.publishSource,
        ...(publishes ?? { detailTypes: [ACTION_FAILED] }),
      });
    }
    this.grantStorage(fn, access);
    return fn;
  }

  /** Every action function gets the same action settings the routing table was built from. */
  actionSettings(fn: AppFunction): void {
    for (const [name, value] of Object.entries(this.config.actions)) fn.setEnv(name, value);
    // Derived from the replay horizon (the config schema refuses a shorter explicit one).
    const derived = idempotencyExpirySeconds(this.config);
    const given = Number(this.config.actions[ENV.actionsIdempotencyExpiresSeconds] ?? 0);
    fn.setEnv(ENV.actionsIdempotencyExpiresSeconds, String(Math.max(derived, given)));
  }

  private grantStorage(fn: AppFunction, access: HandlerAccess): void {
    const { resources } = this;
    if (access.checkpoints)
      useTable(fn, resources.checkpointsTable, FUNCTION_ENV.checkpointsTable, 'checkpoints');
    if (access.idempotency)
      useTable(fn, resources.idempotencyTable, FUNCTION_ENV.idempotencyTable, 'idempotency');
    if (access.actionState) useTable(fn, resources.actionStateTable, FUNCTION_ENV.actionStateTable, 'state');
    if (access.archiveWrite) {
      // The archive heads a key before writing it (a missing one must answer 404), writes the ISDOC
      // with a known length, and may stream a PDF of unknown length as a multipart upload.
      useBucket(fn, resources.archiveBucket, FUNCTION_ENV.archiveBucket, {
        objects: [
          { prefix: ARCHIVE_PREFIX, actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload'] },
          // Documents refused by the schema in strict mode: written for inspection, never read back.
          { prefix: REJECTED_ARCHIVE_PREFIX, actions: ['s3:PutObject', 's3:AbortMultipartUpload'] },
        ],
        missingKeysAnswer404: true,
      });
    }
    if (access.sendingRecordWrite) {
      // Written once (`If-None-Match: *`), never read: no GetObject, no ListBucket, no ISDOC key.
      useBucket(fn, resources.archiveBucket, FUNCTION_ENV.archiveBucket, {
        objects: [{ prefix: ARCHIVE_PREFIX, suffix: SENDING_RECORD_SUFFIX, actions: ['s3:PutObject'] }],
      });
    }
    if (access.reportWrite) {
      // A day's report is written again by a repeated run (a new version): no read, no list.
      useBucket(fn, resources.archiveBucket, FUNCTION_ENV.archiveBucket, {
        objects: [{ prefix: READINESS_REPORT_PREFIX, actions: ['s3:PutObject'] }],
      });
    }
    if (access.claimCheckWrite || access.claimCheckRead) {
      useBucket(
        fn,
        resources.claimCheckBucket,
        FUNCTION_ENV.claimCheckBucket,
        claimCheckAccessOf({ write: access.claimCheckWrite, read: access.claimCheckRead }),
      );
    }
  }
}
