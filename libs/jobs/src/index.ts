export { JOBS_MIGRATIONS } from './migrations';
export {
  SqlJobQueue,
  backoffDelay,
  type Backoff,
  type ClaimedJob,
  type JobQueue,
  type JobToSchedule,
} from './job-queue';
export { JobWorker, type JobWorkerOptions } from './job-worker';
export { type ClaimOptions, type JobVerdict, type LeasedJob, type RunResult, type WorkQueue } from './work-queue';
