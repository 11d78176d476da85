export { LeasedTimers, timerTableStatements, type DueTimer } from './leased-timers';
export { TimerWorker, type TimerVerdict, type TimerWorkerOptions } from './timer-worker';
