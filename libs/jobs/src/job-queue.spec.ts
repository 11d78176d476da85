import { describeOnAllSqlEngines, jobQueueConformance } from '@paygate/testing';
import { SqlJobQueue } from './job-queue';

describeOnAllSqlEngines('job queue', 'jobs', (open) =>
  jobQueueConformance(async () => {
    const { db, close } = await open();
    await SqlJobQueue.migrate(db);
    return { db, queue: (name) => new SqlJobQueue<{ n: number }>(name), close };
  }),
);
