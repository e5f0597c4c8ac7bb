/**
 * An EventBridge rule target that writes events to a log group, with a native
 * `AWS::Logs::ResourcePolicy`. (The stock `CloudWatchLogGroup` target installs that policy
 * through a custom-resource Lambda with a managed policy and `Resource: *`; this does not.)
 */
import { ArnFormat, Lazy, Stack } from 'aws-cdk-lib';
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
    const stack = Stack.of(this);
    // Only the rules that target this log group may write to it (aws:SourceArn), from this account.
    new logs.ResourcePolicy(this, 'Policy', {
      policyStatements: [
        new iam.PolicyStatement({
          principals: [
            new iam.ServicePrincipal('events.amazonaws.com'),
            new iam.ServicePrincipal('delivery.logs.amazonaws.com'),
          ],
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [this.logGroup.logGroupArn],
          conditions: {
            StringEquals: { 'aws:SourceAccount': stack.account },
            ArnEquals: { 'aws:SourceArn': Lazy.any({ produce: () => this.ruleArns }) },
          },
        }),
      ],
    });
    this.node.addValidation({
      validate: () => (this.ruleArns.length > 0 ? [] : ['no rule targets this log group']),
    });
  }

  private readonly ruleArns: string[] = [];

  /** A rule target writing each matched event to this log group; the rule joins the policy's `aws:SourceArn`. */
  target(): events.IRuleTarget {
    return {
      bind: (rule) => {
        this.ruleArns.push(rule.ruleRef.ruleArn);
        return { arn: this.targetArn };
      },
    };
  }
}
