export { LeasedTimers, timerTableStatements, type DueTimer, type TimerChange } from './leased-timers';
export { TimerWorker, type TimerVerdict, type TimerWorkerOptions } from './timer-worker';
