export { LeasedTimers, type DueTimer } from './leased-timers';
export { TimerWorker, type TimerVerdict, type TimerWorkerOptions } from './timer-worker';
