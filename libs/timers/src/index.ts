export {
  LeasedTimers,
  timerAdoptionStatements,
  timerTableStatements,
  type AggregateTimerChanges,
  type DueTimer,
  type TimerChange,
  type TimerPayload,
} from './leased-timers';
export { TimerWorker, type TimerVerdict, type TimerWorkerOptions } from './timer-worker';
