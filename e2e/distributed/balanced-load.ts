import { request } from 'node:http';

export interface LoadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadCounts {
  /** Requests the clients made (a refused connection retried elsewhere is still one request). */
  sent: number;
  responses: number;
  /** Requests answered, by HTTP status. */
  byStatus: Record<number, number>;
  /** Connections refused and retried on another target: nothing reached a server. */
  refused: number;
  /** Requests whose connection failed in any other way (reset, closed before an answer): lost. */
  resets: number;
  serverErrors: number;
  /** What the resets were, for the report. */
  failures: string[];
  /** Readiness checks answered 503: a target said it was going away while still listening. */
  unreadyAnswers: number;
}

type Outcome = { status: number; body: string } | { error: string };

function send(target: string, load: LoadRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    // A connection of its own per request, as a connection-level balancer gives.
    const outgoing = request(
      `${target}${load.path}`,
      { method: load.method, headers: load.headers, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    outgoing.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    outgoing.end(load.body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface BalancedLoadOptions {
  targets: string[];
  /** Clients sending one request after another. */
  concurrency: number;
  /** How often each target's /health/ready is asked, as a load balancer does. */
  checkEveryMs: number;
  next: () => LoadRequest;
  answered: (status: number, body: string) => void;
}

/**
 * Clients behind a load balancer: requests go round robin to the targets whose readiness last
 * answered 200; a refused connection is retried on another target (and takes that target out
 * until it is ready again); a request that fails in any other way is lost and counted.
 */
export function startBalancedLoad({ targets, concurrency, checkEveryMs, next, answered }: BalancedLoadOptions) {
  const counts: LoadCounts = {
    sent: 0,
    responses: 0,
    byStatus: {},
    refused: 0,
    resets: 0,
    serverErrors: 0,
    failures: [],
    unreadyAnswers: 0,
  };
  const inRotation = new Set(targets);
  let turn = 0;
  let stopping = false;

  const check = async (target: string) => {
    while (!stopping) {
      const outcome = await send(target, { method: 'GET', path: '/health/ready', headers: {} });
      if ('status' in outcome && outcome.status === 200) inRotation.add(target);
      else inRotation.delete(target);
      if ('status' in outcome && outcome.status === 503) counts.unreadyAnswers += 1;
      await sleep(checkEveryMs);
    }
  };

  const client = async () => {
    while (!stopping) {
      const load = next();
      counts.sent += 1;
      for (;;) {
        const ready = [...inRotation];
        if (ready.length === 0) {
          await sleep(10);
          continue;
        }
        const target = ready[turn++ % ready.length];
        const outcome = await send(target, load);
        if ('status' in outcome) {
          counts.responses += 1;
          counts.byStatus[outcome.status] = (counts.byStatus[outcome.status] ?? 0) + 1;
          if (outcome.status >= 500) {
            counts.serverErrors += 1;
            // The first few say why, in the suite's report.
            if (counts.failures.length < 5)
              counts.failures.push(`${outcome.status} from ${target}: ${outcome.body.slice(0, 200)}`);
          }
          answered(outcome.status, outcome.body);
          break;
        }
        if (outcome.error !== 'ECONNREFUSED') {
          counts.resets += 1;
          counts.failures.push(outcome.error);
          break;
        }
        counts.refused += 1;
        inRotation.delete(target);
      }
    }
  };

  const running = [...targets.map(check), ...Array.from({ length: concurrency }, client)];
  return {
    counts,
    stop: async (): Promise<LoadCounts> => {
      stopping = true;
      await Promise.all(running);
      return counts;
    },
  };
}
