/**
 * The SNS topic every alarm notifies, encrypted with its own key (CloudWatch may use it), TLS-only,
 * with an optional e-mail subscription.
 */
import { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  readonly topicName: string;
  readonly email?: string;
}

export class AlarmTopic extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key;
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly action: cwActions.SnsAction;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: `Encrypts the ${props.topicName} alarm topic`,
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
    });
    // CloudWatch publishes alarm notifications to the encrypted topic.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', {
      topicName: props.topicName,
      displayName: 'accounting-events alarms',
      masterKey: this.key,
      enforceSSL: true,
    });
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    this.action = new cwActions.SnsAction(this.topic);
  }

  /** Sends the alarm's ALARM and OK transitions to the topic and remembers it. */
  notify(alarm: cloudwatch.Alarm): cloudwatch.Alarm {
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }
}
