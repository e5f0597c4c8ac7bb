/** Action outcomes: every outcome event lands in one log group (audit trail, dashboard). */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { actionOutcomeEntries } from '#functions/core/actions/registry.js';
import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { ruleSourcesOf } from '#infra/config/names.js';
import type { InfraConfig } from '#infra/config/schema.js';
import { retentionOf } from '#infra/constructs/app-function.js';
import type { ConnectionPolling } from '#infra/constructs/connection-polling.js';
import { EventLogGroup } from '#infra/constructs/log-group-target.js';

export interface ActionOutcomes {
  readonly outcomesLogGroup: logs.LogGroup;
  /** `Action.Failed` events: counted by the action failures alarm. */
  readonly actionFailedRule: events.Rule;
}

export function actionOutcomes(
  scope: Construct,
  props: {
    config: InfraConfig;
    eventBus: events.IEventBus;
    /** Its `Connection.Unhealthy` rule logs there too. */
    connectionPolling: ConnectionPolling;
  },
): ActionOutcomes {
  const { config, eventBus } = props;
  const outcomesLog = new EventLogGroup(scope, 'ActionOutcomesLog', {
    retention: retentionOf(config.logRetentionDays),
    removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  props.connectionPolling.unhealthyRule.addTarget(outcomesLog.target());
  const outcomeTypes = actionOutcomeEntries.map((e) => e.detailType);
  new events.Rule(scope, 'ActionOutcomesRule', {
    eventBus,
    description: 'Copies action outcome events to the action outcomes log group',
    eventPattern: { source: ruleSourcesOf(config), detailType: outcomeTypes },
    targets: [outcomesLog.target()],
  });
  const actionFailedRule = new events.Rule(scope, 'ActionFailedRule', {
    eventBus,
    description: 'Action.Failed events: logged, counted by the action failures alarm',
    eventPattern: { source: ruleSourcesOf(config), detailType: [ACTION_FAILED] },
    targets: [outcomesLog.target()],
  });
  return { outcomesLogGroup: outcomesLog.logGroup, actionFailedRule };
}
