export { JOBS_MIGRATIONS } from './migrations';
export {
  SqlJobQueue,
  backoffDelay,
  type Backoff,
  type ClaimOptions,
  type ClaimedJob,
  type JobQueue,
  type JobToSchedule,
} from './job-queue';
export {
  JobWorker,
  type JobVerdict,
  type JobWorkerOptions,
  type LeasedJob,
  type RunResult,
  type WorkQueue,
} from './job-worker';
