/**
 * The status-change notification path: table stream (writes that announce events) -> publisher ->
 * the stack's EventBridge bus -> rule -> webhook deliverer, with the retry job, a dead-letter
 * queue for events whose retries are exhausted, and alarms an operator can subscribe to.
 * Operators attach their own rules and targets to `bus` (docs/notifications.md). The stream's
 * other consumer, the aggregator, keeps the list counts and revenue counters from it.
 */
import { CfnOutput, Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, type IEventSourceDlq, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SCHEDULED_JOB_TIMEOUT_SECONDS } from '../../lib/core/defaults.js';
import { WEBHOOK_DELIVERER_TIMEOUT_SECONDS } from '../../lib/domain/webhook-retry.js';
import { AGGREGATED_STREAM_FILTER } from '../../lib/events/aggregator.js';
import { PUBLISHED_STREAM_FILTERS } from '../../lib/events/outbox.js';
import { EVENT_KINDS, EVENT_SOURCE } from '../../lib/events/schemas.js';
import { acknowledge } from './acknowledge.js';
import { wholeNumberContext } from './context.js';
import { ServiceFunction } from './service-function.js';

/** Concurrent webhook deliveries at most (-c webhookDelivererConcurrency=N, or =unreserved for none reserved). */
export const DEFAULT_WEBHOOK_DELIVERER_CONCURRENCY = 10;

/** Handler modules of the functions this construct deploys (besides the routes' own, lib/routes.ts). */
export const NOTIFICATION_FUNCTIONS = {
  PublishStatusChanges: 'functions/events/publish-status-changes.ts',
  AggregateCounters: 'functions/events/aggregate-counters.ts',
  DeliverWebhook: 'functions/events/deliver-webhook.ts',
  RetryWebhooks: 'functions/jobs/retry-webhooks.ts',
  ExpireSubscriptions: 'functions/jobs/expire-subscriptions.ts',
} as const;

/** A dead-letter queue and an alarm on its first message: anything in a dead-letter queue needs a person. */
function deadLetterQueue(scope: Construct, id: string, holds: string, alarmTopic: Topic): Queue {
  const queue = new Queue(scope, id, {
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  acknowledge(queue, {
    id: 'AwsSolutions-SQS3',
    reason: `It is itself a dead-letter queue (${holds}), watched by an alarm; nothing consumes it automatically.`,
  });
  new Alarm(scope, `${id}Alarm`, {
    alarmDescription: holds,
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  }).addAlarmAction(new SnsAction(alarmTopic));
  return queue;
}

/**
 * The stream's on-failure destination. Lambda writes it with the function's role, and SendMessage
 * is all that takes (SqsDlq would also grant GetQueueAttributes and GetQueueUrl).
 */
const onFailureQueue = (queue: Queue, fn: ServiceFunction): IEventSourceDlq => {
  fn.sendsTo(queue);
  return { bind: () => ({ destination: queue.queueArn }) };
};

export class Notifications extends Construct {
  readonly bus: EventBus;
  readonly webhookDeadLetters: Queue;
  readonly alarmTopic: Topic;
  readonly publisher: ServiceFunction;
  readonly aggregator: ServiceFunction;
  readonly deliverer: ServiceFunction;
  readonly retryJob: ServiceFunction;
  readonly expiryJob: ServiceFunction;

  constructor(scope: Construct, id: string, props: { table: Table; storeSecretsPrefix: string }) {
    super(scope, id);
    const { table } = props;
    this.bus = new EventBus(this, 'Bus', {
      description:
        'subscription.* events of the subscription backend (status changes, transfers, store-driven changes)',
    });
    this.alarmTopic = new Topic(this, 'Alarms', { displayName: 'Subscription backend alarms', enforceSSL: true });
    this.webhookDeadLetters = deadLetterQueue(
      this,
      'WebhookDeadLetters',
      'webhook events undeliverable after every retry',
      this.alarmTopic,
    );
    const streamFailures = deadLetterQueue(
      this,
      'StreamFailures',
      'outbox stream batches the publisher could not put on the bus',
      this.alarmTopic,
    );
    const ruleFailures = deadLetterQueue(
      this,
      'RuleTargetFailures',
      'events the webhook deliverer could not process',
      this.alarmTopic,
    );

    // Stream -> bus. Only writes that announce events reach the function: subscription writes with
    // announced events and transfers' outbox inserts (the filters the local poller applies too).
    this.publisher = new ServiceFunction(this, 'PublishStatusChanges', {
      handlerModule: NOTIFICATION_FUNCTIONS.PublishStatusChanges,
      description: 'table stream (announced events) -> EventBridge',
      environment: { EVENT_BUS_NAME: this.bus.eventBusName },
    });
    this.bus.grantPutEventsTo(this.publisher);
    this.publisher.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 20,
        filters: PUBLISHED_STREAM_FILTERS.map((filter) => FilterCriteria.filter(filter)),
        onFailure: onFailureQueue(streamFailures, this.publisher),
      }),
    );

    // Stream -> list counts and revenue counters: one write per counter item per batch, so the
    // batching window is what keeps those items cool. The tumbling window is there for the shard
    // id it adds to each event (the counters' exactly-once markers need it); its state is unused.
    const aggregatorFailures = deadLetterQueue(
      this,
      'AggregatorFailures',
      'stream batches the aggregator could not add to the list counts and revenue counters',
      this.alarmTopic,
    );
    this.aggregator = new ServiceFunction(this, 'AggregateCounters', {
      handlerModule: NOTIFICATION_FUNCTIONS.AggregateCounters,
      description: 'table stream (subscription writes) -> list counts, revenue counters, history',
    }).useTable(table, ['GetItem', 'UpdateItem', 'BatchWriteItem']);
    this.aggregator.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 1000,
        maxBatchingWindow: Duration.seconds(1),
        tumblingWindow: Duration.minutes(15),
        retryAttempts: 20,
        filters: [FilterCriteria.filter(AGGREGATED_STREAM_FILTER)],
        onFailure: onFailureQueue(aggregatorFailures, this.aggregator),
      }),
    );

    // Bus -> webhooks.
    const environment = { DEAD_LETTER_QUEUE_URL: this.webhookDeadLetters.queueUrl };
    // Reserved concurrency: deliveries to slow receivers never take the account's concurrency from
    // the API functions, and always have their own. Past it, EventBridge's asynchronous invocations
    // wait in Lambda's queue (retried up to maxEventAge below), they are not lost.
    const delivererConcurrency = String(
      this.node.tryGetContext('webhookDelivererConcurrency') ?? DEFAULT_WEBHOOK_DELIVERER_CONCURRENCY,
    );
    this.deliverer = new ServiceFunction(this, 'DeliverWebhook', {
      handlerModule: NOTIFICATION_FUNCTIONS.DeliverWebhook,
      description: 'EventBridge rule target: Standard Webhooks delivery',
      timeout: Duration.seconds(WEBHOOK_DELIVERER_TIMEOUT_SECONDS),
      environment,
      ...(delivererConcurrency === 'unreserved'
        ? {}
        : {
            reservedConcurrentExecutions: wholeNumberContext(
              this.node,
              'webhookDelivererConcurrency',
              DEFAULT_WEBHOOK_DELIVERER_CONCURRENCY,
              [1, 1000],
            ),
          }),
    }).useTable(table, ['GetItem', 'PutItem', 'UpdateItem']);
    new Rule(this, 'StatusChangedToWebhooks', {
      eventBus: this.bus,
      description:
        'Delivers every event kind (subscription.status_changed, subscription.transferred) to the app webhook',
      eventPattern: { source: [EVENT_SOURCE], detailType: [...EVENT_KINDS] },
      targets: [
        new LambdaFunction(this.deliverer, {
          retryAttempts: 8,
          maxEventAge: Duration.hours(6),
          deadLetterQueue: ruleFailures,
        }),
      ],
    });

    // Every minute: webhook retries that are due, and subscriptions the clock has made due.
    this.retryJob = new ServiceFunction(this, 'RetryWebhooks', {
      handlerModule: NOTIFICATION_FUNCTIONS.RetryWebhooks,
      description: 'every minute: webhook deliveries whose next try is due',
      timeout: Duration.seconds(SCHEDULED_JOB_TIMEOUT_SECONDS),
      environment,
    }).useTable(table, ['GetItem', 'PutItem', 'UpdateItem', 'Query']);
    this.expiryJob = new ServiceFunction(this, 'ExpireSubscriptions', {
      handlerModule: NOTIFICATION_FUNCTIONS.ExpireSubscriptions,
      description: 'every minute: expiries and pause ends that are due',
      timeout: Duration.seconds(SCHEDULED_JOB_TIMEOUT_SECONDS),
      // Before expiring a store subscription that renews by itself, it asks the store (store-truth.ts).
    })
      // It also carries on erasures of users under way: their partitions deleted, the marker at the end.
      .useTable(table, ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem', 'DeleteItem'])
      .useStoreSecrets(props.storeSecretsPrefix);
    for (const [name, job] of [
      ['RetryWebhooksEveryMinute', this.retryJob],
      ['ExpireSubscriptionsEveryMinute', this.expiryJob],
    ] as const) {
      new Rule(this, name, {
        schedule: Schedule.rate(Duration.minutes(1)),
        targets: [new LambdaFunction(job, { retryAttempts: 0 })],
      });
    }
    for (const fn of [this.deliverer, this.retryJob]) fn.sendsTo(this.webhookDeadLetters);

    new CfnOutput(scope, 'EventBusName', {
      value: this.bus.eventBusName,
      description: 'attach your own rules to this bus',
    });
    new CfnOutput(scope, 'AlarmTopicArn', {
      value: this.alarmTopic.topicArn,
      description: 'subscribe to be told about dead letters',
    });
    new CfnOutput(scope, 'WebhookDeadLetterQueueUrl', { value: this.webhookDeadLetters.queueUrl });
  }
}
