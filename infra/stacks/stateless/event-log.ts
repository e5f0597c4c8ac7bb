/**
 * The event log: every event of the deployment's connections on the bus (record, payment and
 * connection events, action outcomes, the intake's), copied by one rule to one log group, so they
 * can be read on AWS (`aws logs tail`); the bus archive keeps them for replay, but cannot be read.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ruleSourcesOf } from '#infra/config/names.js';
import type { InfraConfig } from '#infra/config/schema.js';
import { retentionOf } from '#infra/constructs/app-function.js';
import { EventLogGroup } from '#infra/constructs/log-group-target.js';

export function eventLog(
  scope: Construct,
  props: { config: InfraConfig; eventBus: events.IEventBus },
): logs.LogGroup {
  const { config, eventBus } = props;
  const log = new EventLogGroup(scope, 'EventLog', {
    retention: retentionOf(config.logRetentionDays),
    removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  new events.Rule(scope, 'EventLogRule', {
    eventBus,
    description: "Copies every event of the deployment's connections to the event log group",
    eventPattern: { source: ruleSourcesOf(config) },
    targets: [log.target()],
  });
  return log.logGroup;
}
