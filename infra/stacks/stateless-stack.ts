/**
 * Code and wiring, safe to replace at any time: the poller and its schedule, one rule → queue
 * (+ DLQ) → function per route of the routing table, scheduled actions, alarms and the dashboard.
 * Stateful resources arrive as typed props. Each part is built in its own module (./stateless/),
 * always in the stack's own scope, so every logical id stays what it was.
 */
import {
  Annotations,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { deployedTargetChecks, parseTargetSpecs } from '#functions/core/delivery/delivery-targets.js';
import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { BANK_TRANSACTION_RECEIVED } from '#functions/core/events/bank-events.js';
import type { Route, ScheduledAction } from '#functions/core/routes.js';
import { namePrefix, ruleSourcesOf } from '../config/names.js';
import type { InfraConfig } from '../config/schema.js';
import { AlarmTopic } from '../constructs/alarm-topic.js';
import { type AppFunction, retentionOf } from '../constructs/app-function.js';
import { ConnectionPolling, POLLER_DETAIL_TYPE_PATTERNS } from '../constructs/connection-polling.js';
import { type ConnectionsAccess, connectionsAccessOf } from '../constructs/connections-access.js';
import { POLLER_HANDLER } from '../constructs/handler-access.js';
import { findHandlerEntry, MissingHandlerError } from '../constructs/handler-entry.js';
import { HttpDeliveries } from '../constructs/http-deliveries.js';
import { METRICS_NAMESPACE } from '../constructs/metric-names.js';
import { OperationsDashboard } from '../constructs/operations-dashboard.js';
import { OrderIntake } from '../constructs/order-intake.js';
import { SignedDeliveries } from '../constructs/signed-deliveries.js';
import type { StatefulResources } from './stateful-stack.js';
import { actionOutcomes } from './stateless/action-outcomes.js';
import {
  actionRoute,
  assertUniqueRouteIds,
  type RouteResources,
  scheduledAction,
} from './stateless/action-routes.js';
import { statelessAlarms } from './stateless/alarms.js';
import {
  type BankStatementDrop,
  bankStatementDrop,
  IMPORT_BANK_STATEMENTS_HANDLER,
} from './stateless/bank-statements.js';
import { eventLog } from './stateless/event-log.js';
import { FunctionFactory } from './stateless/function-factory.js';
import { deadLetterQueue } from './stateless/queues.js';

export type { RouteResources } from './stateless/action-routes.js';
/**
 * The detail-type of a failed action (functions/core/events/action-events.ts), the detail-type
 * patterns every poller publishes (`<RecordType>.<Change>`) and the poller's handler module.
 */
export { ACTION_FAILED, POLLER_DETAIL_TYPE_PATTERNS, POLLER_HANDLER };

export interface StatelessStackProps extends StackProps {
  readonly config: InfraConfig;
  readonly resources: StatefulResources;
  /** The routing table (`buildRoutes(actionsConfig)` of functions/core/routes.ts). */
  readonly routes: readonly Route[];
  /** Functions run on a rate (`buildScheduledActions(actionsConfig)`). */
  readonly scheduledActions: readonly ScheduledAction[];
}

export class StatelessStack extends Stack {
  readonly poller: AppFunction;
  readonly pollSchedule: scheduler.Schedule;
  /** The poller of the registry of one, or of the registry's shards; their schedules; the unhealthy rule and alarm. */
  readonly connectionPolling: ConnectionPolling;
  readonly scheduleDeadLetterQueue: sqs.Queue;
  readonly routeResources: RouteResources[];
  readonly scheduledFunctions: AppFunction[];
  readonly alarmTopic: AlarmTopic;
  /** With the `dashboard` setting only. */
  readonly dashboard: OperationsDashboard | undefined;
  /** The e-shop order intake (absent with `intakeEnabled=false`). */
  readonly orderIntake: OrderIntake | undefined;
  readonly outcomesLogGroup: logs.LogGroup;
  /** Every event of the deployment's connections (`aws logs tail` of output `EventLogGroupName`). */
  readonly eventLogGroup: logs.LogGroup;
  readonly actionFailedRule: events.Rule;
  /** Signed deliveries to the configured HTTP consumers (`deliveries`, `deliveryVia=function`). */
  readonly signedDeliveries: SignedDeliveries | undefined;
  /** API destinations to the configured HTTP consumers (`deliveryVia=api-destination`). */
  readonly httpDeliveries: HttpDeliveries | undefined;
  /** Bank statements dropped into S3 → their transactions on the bus (when a route takes them). */
  readonly bankStatements: BankStatementDrop | undefined;
  /** The registry of one or the registry table: how every function finds its connections. */
  readonly connections: ConnectionsAccess;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config, resources } = props;
    const prefix = namePrefix(config);
    assertUniqueRouteIds(props.routes);
    if (this.bundlingRequired) assertHandlersPresent(props);

    this.alarmTopic = new AlarmTopic(this, 'Alarms', {
      topicName: `${prefix}-alarms`,
      alarmNamePrefix: `${prefix}-`,
      customerManagedKey: config.customerManagedKey,
      ...(config.alarmEmail ? { email: config.alarmEmail } : {}),
    });
    this.scheduleDeadLetterQueue = deadLetterQueue(this, 'ScheduleDlq', config);
    Validations.of(this.scheduleDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the EventBridge Scheduler schedules itself.',
    });

    // --- poller + schedule: the registry of one (one connection), or the shards of the connection registry
    const scheduleDeadLetterQueue = this.scheduleDeadLetterQueue;
    const alarmTopic = this.alarmTopic;
    const connections = connectionsAccessOf(this, config, resources);
    this.connections = connections;
    const functions = new FunctionFactory(this, config, resources, connections);
    this.connectionPolling = new ConnectionPolling(this, 'Connections', {
      config,
      resources,
      alarmTopic,
      scheduleDeadLetterQueue,
      connections,
      functions,
    });
    const poller = this.connectionPolling.poller;
    this.poller = poller;
    this.pollSchedule = this.connectionPolling.pollSchedule;

    // --- one rule → queue (+DLQ) → function per route
    const eventBus = resources.eventBus;
    this.routeResources = props.routes.map((route) =>
      actionRoute(this, functions, { route, config, eventBus }),
    );

    // --- bank statements dropped into S3 → `BankTransaction.Received`, when a route liquidates them
    this.bankStatements = this.statementDrop(props);

    // --- e-shop order intake: HTTP API → verify → FIFO queue → import
    if (config.intakeEnabled) this.orderIntake = this.intake(config, resources);

    // --- scheduled actions
    const connectionsTable = connections.table;
    this.scheduledFunctions = props.scheduledActions.map((action) =>
      scheduledAction(this, functions, { action, config, scheduleDeadLetterQueue, connectionsTable }),
    );

    // --- action outcomes, HTTP deliveries, alarms, dashboard
    const outcomes = actionOutcomes(this, { config, eventBus, connectionPolling: this.connectionPolling });
    this.outcomesLogGroup = outcomes.outcomesLogGroup;
    this.actionFailedRule = outcomes.actionFailedRule;
    this.eventLogGroup = eventLog(this, { config, eventBus });
    if (config.deliveries.length > 0 && config.deliveryVia === 'function') {
      this.signedDeliveries = this.signed(config, resources);
    } else if (config.deliveries.length > 0) {
      this.httpDeliveries = this.deliveries(config, resources);
    }
    statelessAlarms(this, {
      config,
      topic: alarmTopic,
      scheduleDeadLetterQueue,
      poller,
      pollerRunAlarmed: this.connectionPolling.pollerRunAlarmed,
      eventBus,
      actionFailedRule: this.actionFailedRule,
      routes: this.routeResources,
      bankStatements: this.bankStatements,
      scheduledFunctions: this.scheduledFunctions,
    });
    this.dashboard = config.dashboard ? this.operationsDashboard(config) : undefined;
    this.outputs(prefix);
  }

  private statementDrop(props: StatelessStackProps): BankStatementDrop | undefined {
    if (!takesBankTransactions(props.routes)) return undefined;
    const { config, resources } = props;
    return bankStatementDrop(this, {
      config,
      resources,
      connections: this.connections,
    });
  }

  private intake(config: InfraConfig, resources: StatefulResources): OrderIntake {
    const intake = new OrderIntake(this, 'OrderIntake', {
      config,
      resources,
      alarmTopic: this.alarmTopic,
      connections: this.connections,
    });
    new CfnOutput(this, 'IntakeUrl', { value: `${intake.api.apiEndpoint}/intake/` });
    new CfnOutput(this, 'IntakeSecretArn', { value: intake.secret.secretArn });
    if (intake.shoptet)
      new CfnOutput(this, 'IntakeShoptetTokenSecretArn', { value: intake.shoptet.tokenSecret.secretArn });
    return intake;
  }

  private signed(config: InfraConfig, resources: StatefulResources): SignedDeliveries {
    if (config.deliveryPrivateTargets) {
      Annotations.of(this).addWarningV2(
        'accounting-events:deliveryPrivateTargets',
        'deliveryPrivateTargets is on: HTTP delivery targets may be private or loopback addresses, where the delivery function would hand events and signed requests to whatever listens (the Lambda Runtime API listens on 127.0.0.1:9001)',
      );
    }
    const removalPolicy = config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const deliveries = new SignedDeliveries(this, 'Deliveries', {
      namePrefix: namePrefix(config),
      eventBus: resources.eventBus,
      sources: ruleSourcesOf(config),
      targets: parseTargetSpecs(config.deliveries, deployedTargetChecks(config.deliveryPrivateTargets)),
      alarmTopic: this.alarmTopic,
      retryAttempts: config.deliveryRetryAttempts,
      deadLetterRetention: Duration.days(config.deadLetterRetentionDays),
      queueRetention: Duration.days(config.redriveWindowDays),
      queueAgeAlarmSeconds: config.queueAgeAlarmSeconds,
      removalPolicy,
      privateTargets: config.deliveryPrivateTargets,
      function: {
        memorySize: config.actionMemoryMb,
        metricsNamespace: METRICS_NAMESPACE,
        logLevel: config.logLevel,
        logRetention: retentionOf(config.logRetentionDays),
      },
    });
    for (const { target, secret } of deliveries.targets) {
      new CfnOutput(this, `DeliverySecretArn${target.id.replace(/[^A-Za-z0-9]/g, '')}`, {
        description: `Signing key of HTTP delivery ${target.id}: the consumer verifies with whsec_<value>`,
        value: secret.secretArn,
      });
    }
    return deliveries;
  }

  private deliveries(config: InfraConfig, resources: StatefulResources): HttpDeliveries {
    const deliveries = new HttpDeliveries(this, 'HttpDeliveries', {
      namePrefix: namePrefix(config),
      eventBus: resources.eventBus,
      sources: ruleSourcesOf(config),
      targets: parseTargetSpecs(config.deliveries, deployedTargetChecks(config.deliveryPrivateTargets)),
      alarmTopic: this.alarmTopic,
      retryAttempts: config.deliveryRetryAttempts,
      maxEventAge: Duration.hours(24),
      rateLimitPerSecond: config.deliveryRateLimitPerSecond,
      removalPolicy: config.removalPolicy === 'DESTROY' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    for (const [id, key] of deliveries.keySecrets) {
      new CfnOutput(this, `DeliveryKeySecretArn${id.replace(/[^A-Za-z0-9]/g, '')}`, {
        value: key.secretArn,
        description: `The key the HTTP consumer ${id} checks`,
      });
    }
    return deliveries;
  }

  private operationsDashboard(config: InfraConfig): OperationsDashboard {
    return new OperationsDashboard(this, 'Dashboard', {
      dashboardName: namePrefix(config),
      namespace: METRICS_NAMESPACE,
      poller: this.poller,
      routes: this.routeResources,
      scheduled: this.scheduledFunctions,
      scheduleDeadLetterQueue: this.scheduleDeadLetterQueue,
      alarms: this.alarmTopic.alarms,
      outcomesLogGroup: this.outcomesLogGroup,
      detailedMetrics: config.detailedMetrics,
      ...(this.connections.table ? { connections: { perConnection: config.perConnectionMetrics } } : {}),
    });
  }

  private outputs(prefix: string): void {
    new CfnOutput(this, 'PollerFunctionName', { value: this.poller.function.functionName });
    new CfnOutput(this, 'PollerLogGroupName', { value: this.poller.logGroup.logGroupName });
    new CfnOutput(this, 'EventLogGroupName', {
      description: "Every event of the deployment's connections: aws logs tail <this> --follow",
      value: this.eventLogGroup.logGroupName,
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topic.topicArn });
    if (this.dashboard) new CfnOutput(this, 'DashboardName', { value: prefix });
  }
}

/** Whether a route of the table takes `BankTransaction.Received` (the payment action's). */
function takesBankTransactions(routes: readonly Route[]): boolean {
  return routes.some((r) => r.pattern['detail-type'].includes(BANK_TRANSACTION_RECEIVED));
}

/** Bundling needs every handler module: names all the missing ones at once. */
function assertHandlersPresent(props: StatelessStackProps): void {
  const wanted = [
    { handler: POLLER_HANDLER, usedBy: 'the poller' },
    ...(takesBankTransactions(props.routes)
      ? [{ handler: IMPORT_BANK_STATEMENTS_HANDLER, usedBy: 'the bank statement drop' }]
      : []),
    ...props.routes.map((r) => ({ handler: r.handler, usedBy: `route '${r.id}'` })),
    ...props.scheduledActions.map((a) => ({ handler: a.handler, usedBy: `scheduled action '${a.id}'` })),
  ];
  const missing = wanted.filter((w) => findHandlerEntry(w.handler) === undefined);
  if (missing.length > 0) throw new MissingHandlerError(missing);
}
