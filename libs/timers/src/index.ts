export { LeasedTimers, timerTableStatements, type DueTimer, type TimerChange, type TimerPayload } from './leased-timers';
export { TimerWorker, type TimerVerdict, type TimerWorkerOptions } from './timer-worker';
