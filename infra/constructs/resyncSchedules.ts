/**
 * ResyncSchedules: EventBridge Scheduler schedules that start the resync function —
 * `Resync` every resyncMinutes (expired leases, failed passes, due wake-ups; input
 * `{"full": false}`) and `FullResync` every fullResyncHours (every known JobSet, in case events
 * were lost before the bus; input `{"full": true}`, functions/resync.ts).
 */
import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { InvokeFunction } from './invokeFunction.ts';

/** RESYNC_MAX_EVENT_AGE: Scheduler's minimum; a resync start that waited longer is superseded by the next tick anyway. */
export const RESYNC_MAX_EVENT_AGE = Duration.minutes(1);
/** FULL_RESYNC_RETRIES: retries of a failed full-resync start (the next one is hours away). */
export const FULL_RESYNC_RETRIES = 3;

/** ResyncSchedulesProps: the function and the two rates. */
export interface ResyncSchedulesProps {
  readonly resync: lambda.IFunction;
  readonly every: Duration;
  readonly fullEvery: Duration;
}

/** ResyncSchedules: `Resync` and `FullResync`. */
export class ResyncSchedules extends Construct {
  readonly resync: scheduler.Schedule;
  readonly fullResync: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: ResyncSchedulesProps) {
    super(scope, id);
    this.resync = new scheduler.Schedule(this, 'Resync', {
      description: 'Lineup: re-queue JobSets whose lease expired, whose last pass failed or whose wake-up is due',
      schedule: scheduler.ScheduleExpression.rate(props.every),
      // No retries: the next tick does the same work.
      target: new InvokeFunction(props.resync, {
        input: scheduler.ScheduleTargetInput.fromObject({ full: false }),
        retryAttempts: 0,
        maxEventAge: RESYNC_MAX_EVENT_AGE,
      }),
    });
    this.fullResync = new scheduler.Schedule(this, 'FullResync', {
      description: 'Lineup: re-queue every known JobSet (events lost before the bus)',
      schedule: scheduler.ScheduleExpression.rate(props.fullEvery),
      target: new InvokeFunction(props.resync, {
        input: scheduler.ScheduleTargetInput.fromObject({ full: true }),
        retryAttempts: FULL_RESYNC_RETRIES,
      }),
    });
  }
}
