/**
 * The SNS topic every alarm notifies, TLS-only, with an optional e-mail subscription, encrypted with
 * its own customer managed key when asked (`customerManagedKey`; CloudWatch cannot publish to a
 * topic under the AWS managed SNS key, so without one the topic has no server-side encryption: its
 * messages are alarm names and states). CloudWatch may publish to the topic (and use the key) only
 * for this deployment's alarms: the statements carry `aws:SourceAccount` and an alarm
 * `aws:SourceArn` (the alarm names share `alarmNamePrefix`). The topic's own policy replaces SNS's
 * default one, so without the publish statement no alarm notification would ever arrive.
 */
import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  readonly topicName: string;
  /** Every alarm of the topic is named `<alarmNamePrefix><id>` (see `alarmName`). */
  readonly alarmNamePrefix: string;
  readonly email?: string;
  /** A customer managed KMS key for the topic (default: none). */
  readonly customerManagedKey?: boolean;
}

export class AlarmTopic extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key | undefined;
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly action: cwActions.SnsAction;
  private readonly alarmNamePrefix: string;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    this.alarmNamePrefix = props.alarmNamePrefix;
    const stack = Stack.of(this);
    const cloudWatchConditions = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: `${props.alarmNamePrefix}*`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    this.key = props.customerManagedKey
      ? new kms.Key(this, 'Key', {
          description: `Encrypts the ${props.topicName} alarm topic`,
          enableKeyRotation: true,
          pendingWindow: Duration.days(7),
        })
      : undefined;
    // CloudWatch publishes alarm notifications to the encrypted topic.
    this.key?.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: cloudWatchConditions,
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', {
      topicName: props.topicName,
      displayName: 'accounting-events alarms',
      ...(this.key ? { masterKey: this.key } : {}),
      enforceSSL: true,
    });
    if (!this.key) {
      Validations.of(this.topic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'Alarm notifications carry alarm names and states only; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer managed key is the customerManagedKey setting.',
      });
    }
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: cloudWatchConditions,
      }),
    );
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    this.action = new cwActions.SnsAction(this.topic);
  }

  /** The name an alarm of this topic gets: the prefix the policies' `aws:SourceArn` allows. */
  alarmName(id: string): string {
    return `${this.alarmNamePrefix}${id}`.slice(0, 255);
  }

  /** Sends the alarm's ALARM and OK transitions to the topic and remembers it. */
  notify(alarm: cloudwatch.Alarm): cloudwatch.Alarm {
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }
}
