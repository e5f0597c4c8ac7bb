/**
 * An EventBridge rule target that writes events to a log group, with a native
 * `AWS::Logs::ResourcePolicy`. (The stock `CloudWatchLogGroup` target installs that policy
 * through a custom-resource Lambda with a managed policy and `Resource: *`; this does not.)
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export class EventLogGroup extends Construct {
  readonly logGroup: logs.LogGroup;
  /** The log group's ARN without the trailing `:*`, as rule targets take it. */
  readonly targetArn: string;

  constructor(scope: Construct, id: string, props: logs.LogGroupProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'LogGroup', props);
    this.targetArn = Stack.of(this).formatArn({
      service: 'logs',
      resource: 'log-group',
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      resourceName: this.logGroup.logGroupName,
    });
    // Filled by `target()`: one statement per rule that targets this log group.
    this.policy = new logs.ResourcePolicy(this, 'Policy');
    this.node.addValidation({
      validate: () => (this.policy.document.isEmpty ? ['no rule targets this log group'] : []),
    });
  }

  private readonly policy: logs.ResourcePolicy;

  /**
   * A rule target writing each matched event to this log group. The policy admits the writers from
   * this account (`aws:SourceAccount`) to create streams, and only the rules that target this log
   * group (`aws:SourceArn`) to put events: a `PutLogEvents` delivery carries the rule's ARN, a
   * `CreateLogStream` does not, so a `SourceArn` condition on it would refuse every stream.
   */
  target(): events.IRuleTarget {
    return {
      bind: (rule) => {
        const account = { 'aws:SourceAccount': Stack.of(this).account };
        if (this.policy.document.isEmpty) {
          this.policy.document.addStatements(
            new iam.PolicyStatement({
              principals: WRITERS(),
              actions: ['logs:CreateLogStream'],
              resources: [this.logGroup.logGroupArn],
              conditions: { StringEquals: account },
            }),
          );
        }
        this.policy.document.addStatements(
          new iam.PolicyStatement({
            principals: WRITERS(),
            actions: ['logs:PutLogEvents'],
            resources: [this.logGroup.logGroupArn],
            conditions: { StringEquals: account, ArnEquals: { 'aws:SourceArn': rule.ruleRef.ruleArn } },
          }),
        );
        return { arn: this.targetArn };
      },
    };
  }
}

/** The services that deliver a rule's events to a log group. */
const WRITERS = () => [
  new iam.ServicePrincipal('events.amazonaws.com'),
  new iam.ServicePrincipal('delivery.logs.amazonaws.com'),
];
