import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { baseDimensions, METRICS_NAMESPACE } from '../shared/kernel/metrics';
import { RUNBOOK, withRunbook } from './runbook';
import { WORKER_TIMEOUT_SECONDS, type QueueDefinition, type WorkerAlarm, type WorkerDefinition } from '../shared/workers';
import { buildFunction, FunctionRoles, type AccessProfile, type FunctionContext, type ProjectFunction } from './function';

/**
 * The asynchronous half of the manifest (shared/workers.ts): each worker's function and its
 * trigger, with the event shapes the embedded platform's drivers imitate:
 *   stream   -> DynamoDB event source on the table's stream (failures to an SQS destination)
 *   queue    -> SQS event source on the named queue (which has its own dead-letter queue)
 *   schedule -> EventBridge rule with a rate
 */


/** An alarm when anything lands in a dead-letter queue: every message there is lost work. */
function deadLetterAlarm(scope: Construct, id: string, queue: sqs.IQueue, description: string, anchor: string): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription: withRunbook(description, anchor),
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/**
 * An alarm on a metric a worker writes (EMF, shared/kernel/metrics.ts), over one period of the
 * worker's schedule: its maximum above the threshold breaches; no data (the worker did not run,
 * or ran before the first point) does not.
 */
function metricAlarm(scope: Construct, alarm: WorkerAlarm, stage: string, periodMinutes: number): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, `${alarm.metric}Alarm`, {
    alarmDescription: withRunbook(alarm.description, alarm.metric.replace(/(?<=[a-z])(?=[A-Z])/g, '-').toLowerCase()),
    metric: new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: alarm.metric,
      dimensionsMap: baseDimensions(stage),
      statistic: 'Maximum',
      period: Duration.minutes(periodMinutes),
    }),
    threshold: alarm.above,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** How long a scheduled worker fails every run before its alarm: long enough to outlast a blip. */
export const SCHEDULED_FAILING_MINUTES = 5;

/**
 * An alarm when a scheduled worker failed in every period of its schedule for
 * SCHEDULED_FAILING_MINUTES (at least two periods): nothing else watches a schedule, whose failed
 * runs leave no message in a queue and no record in a stream, only the next run.
 */
function scheduledErrorsAlarm(fn: ProjectFunction, name: string, rateMinutes: number): cloudwatch.Alarm {
  const periods = Math.max(2, Math.ceil(SCHEDULED_FAILING_MINUTES / rateMinutes));
  return new cloudwatch.Alarm(fn, 'ScheduledErrorsAlarm', {
    alarmDescription: withRunbook(`Scheduled worker ${name} failed in each of its last ${periods} runs (every ${rateMinutes} min)`, RUNBOOK.scheduledWorkerErrors),
    metric: fn.function.metricErrors({ period: Duration.minutes(rateMinutes), statistic: 'Sum' }),
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: periods,
    datapointsToAlarm: periods,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** A work queue with its dead-letter queue and an alarm on the dead letters. */
export class ProjectQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, readonly definition: QueueDefinition) {
    super(scope, `Queue${definition.name[0]!.toUpperCase()}${definition.name.slice(1)}`);
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The longest SQS allows: time to find the cause and redrive.
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: definition.maxReceiveCount },
    });
    this.deadLetterAlarm = deadLetterAlarm(this, 'DeadLettersAlarm', this.deadLetters, `Messages of queue ${definition.name} gave up after ${definition.maxReceiveCount} receives`, RUNBOOK.deadLetters);
  }
}

export interface WorkersProps {
  /** The deployment stage: the Stage dimension of the metrics the workers write. */
  stage: string;
  workers: readonly WorkerDefinition[];
  functions: FunctionContext;
  queues: ReadonlyMap<string, ProjectQueue>;
  profileFor(worker: WorkerDefinition): AccessProfile;
  environmentFor?(worker: WorkerDefinition): Record<string, string>;
}

export class Workers extends Construct {
  readonly functions = new Map<string, ProjectFunction>();
  readonly alarms: cloudwatch.Alarm[] = [];
  /** The stream workers' functions, by worker name (their iterator age is watched: lib/monitoring.ts). */
  readonly streamFunctions = new Map<string, ProjectFunction>();

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const roles = new FunctionRoles(this, 'Roles');
    for (const worker of props.workers) {
      const timeoutSeconds = worker.timeoutSeconds ?? WORKER_TIMEOUT_SECONDS;
      const fn = buildFunction(this, roles, props.functions, {
        name: worker.name,
        handler: worker.handler,
        description: `${worker.trigger.kind} worker (${worker.handler}): ${worker.description}`,
        profile: props.profileFor(worker),
        environment: props.environmentFor?.(worker) ?? {},
        timeoutSeconds,
      });
      this.functions.set(worker.name, fn);
      this.addTrigger(worker, fn, timeoutSeconds, props);
      const periodMinutes = worker.trigger.kind === 'schedule' ? worker.trigger.rateMinutes : 5;
      for (const alarm of worker.alarms ?? []) this.alarms.push(metricAlarm(fn, alarm, props.stage, periodMinutes));
    }
  }

  private addTrigger(worker: WorkerDefinition, fn: ProjectFunction, timeoutSeconds: number, props: WorkersProps): void {
    const trigger = worker.trigger;
    switch (trigger.kind) {
      case 'stream': {
        const table = props.functions.tables[trigger.table];
        if (!table?.definition.stream) throw new Error(`${worker.name} reads the ${trigger.table} table's stream, which is not enabled`);
        // A record that keeps failing is parked here (not lost) once its retries are spent.
        const failures = new sqs.Queue(fn, 'StreamFailures', {
          encryption: sqs.QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          retentionPeriod: Duration.days(14),
        });
        Validations.of(failures).acknowledge({
          id: 'AwsSolutions-SQS3',
          reason: 'This queue is itself the on-failure destination of a stream event source (a dead-letter queue); it has no consumer to fail.',
        });
        this.alarms.push(deadLetterAlarm(fn, 'StreamFailuresAlarm', failures, `Stream records ${worker.name} could not process`, RUNBOOK.streamFailures));
        this.streamFunctions.set(worker.name, fn);
        fn.function.addEventSource(
          new sources.DynamoEventSource(table.table, {
            startingPosition: lambda.StartingPosition.TRIM_HORIZON,
            batchSize: trigger.batchSize,
            bisectBatchOnError: true,
            reportBatchItemFailures: true,
            retryAttempts: 10,
            onFailure: new sources.SqsDlq(failures),
            // Lambda invokes the worker only for the records it acts on (the manifest's patterns).
            ...(trigger.filters ? { filters: trigger.filters.map((pattern) => lambda.FilterCriteria.filter(pattern as unknown as Record<string, unknown>)) } : {}),
          }),
        );
        return;
      }
      case 'queue': {
        const queue = props.queues.get(trigger.queue);
        if (!queue) throw new Error(`${worker.name} consumes queue ${trigger.queue}, which shared/workers.ts does not define`);
        // SQS refuses an event source whose visibility timeout is shorter than the function's.
        if (queue.definition.visibilityTimeoutSeconds < timeoutSeconds) {
          throw new Error(`Queue ${trigger.queue}: visibility timeout ${queue.definition.visibilityTimeoutSeconds}s is shorter than ${worker.name}'s timeout ${timeoutSeconds}s`);
        }
        fn.function.addEventSource(new sources.SqsEventSource(queue.queue, { batchSize: trigger.batchSize, reportBatchItemFailures: true }));
        this.alarms.push(queue.deadLetterAlarm);
        return;
      }
      case 'schedule': {
        new events.Rule(fn, 'Schedule', {
          description: `Runs ${worker.name} every ${trigger.rateMinutes} minute(s)`,
          schedule: events.Schedule.rate(Duration.minutes(trigger.rateMinutes)),
          // The next tick runs the sweep again, so a missed one needs no long retry tail.
          targets: [new targets.LambdaFunction(fn.function, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
        });
        this.alarms.push(scheduledErrorsAlarm(fn, worker.name, trigger.rateMinutes));
        return;
      }
    }
  }
}
