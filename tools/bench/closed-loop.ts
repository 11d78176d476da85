/**
 * The closed loop of bench:e2e and bench:money-out: payers each run one item after another (a
 * request, then its final callback at the receiver) for WARMUP_SECONDS + SECONDS, and the figures
 * of the measured window: items completed per second, latency from the request to the callback,
 * what each process spent (cost-table.ts), and what went wrong.
 */
import type { Proc } from './apps';
import { cpuMeter, SECONDS, WARMUP_SECONDS } from './load';
import { percentile } from './figures';
import type { CostMeter, Snapshot, Window } from './cost-table';
import type { FinalEvent, Outcome, Receiver } from './receiver';

/** One item as its payer saw it. */
export interface Attempt {
  startedAt: number;
  /** The request answered (202 or not). */
  answeredAt: number;
  status: number;
  outcome?: Outcome;
}

/** POSTs `body` to `url` and, once it is answered 202, waits for the final callback `event` of `reference`. */
export async function attempt(
  receiver: Receiver,
  event: FinalEvent,
  reference: string,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<Attempt> {
  const arrival = receiver.expect(reference, event);
  const startedAt = performance.now();
  const status = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  }).then(
    (response) => response.arrayBuffer().then(() => response.status),
    () => 0,
  );
  const answeredAt = performance.now();
  if (status !== 202) {
    receiver.forget(reference, event);
    return { startedAt, answeredAt, status };
  }
  return { startedAt, answeredAt, status, outcome: await arrival };
}

/** How the notes name what is driven: `lifecycles`, `initialize`, `initialized`, and the callback that ends one. */
export interface Words {
  items: string;
  request: string;
  accepted: string;
  finalEvent: FinalEvent;
}

export interface LoadResult {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Of the request's answer alone. */
  requestP99Ms: number;
  lost: number;
  errors: number;
  /** What the errors were, and anything else worth a line. */
  notes: string[];
  /** Each process's CPU over the window, in % of one core. */
  cpu: string;
  /** What each process spent over the measured window, and the items completed in it. */
  cost: { window: Window; items: number };
}

/**
 * `inFlight` payers over `gateways` (round-robin) for WARMUP_SECONDS + SECONDS, each running `item` again as soon as
 * its last one ended, then waiting for those under way (the receiver's drain). Counted over the measured window only:
 * items whose callback arrived in it, latencies of items started in it, CPU and the cost meter.
 */
export async function closedLoop(options: {
  procs: Proc[];
  gateways: Proc[];
  inFlight: number;
  meter: CostMeter;
  receiver: Receiver;
  item: (gateway: string, payer: number) => Promise<Attempt>;
  words: Words;
}): Promise<LoadResult> {
  const { procs, gateways, inFlight, meter, receiver, item, words } = options;
  receiver.takeCounts();
  const begin = performance.now();
  const windowStart = begin + WARMUP_SECONDS * 1_000;
  const windowEnd = windowStart + SECONDS * 1_000;
  const done: Attempt[] = [];
  let cpu = '';
  const meterStarted = new Promise<(seconds: number) => string>((resolve) =>
    setTimeout(() => resolve(cpuMeter(procs, 'bench')), windowStart - begin),
  );
  const meterRead = new Promise<void>((resolve) =>
    setTimeout(() => meterStarted.then((read) => resolve(void (cpu = read(SECONDS)))), windowEnd - begin),
  );
  const costBefore = new Promise<Snapshot>((resolve) =>
    setTimeout(() => resolve(meter.snapshot()), windowStart - begin),
  );
  const costAfter = new Promise<Snapshot>((resolve) => setTimeout(() => resolve(meter.snapshot()), windowEnd - begin));
  await Promise.all(
    Array.from({ length: inFlight }, async (_, payer) => {
      const gateway = gateways[payer % gateways.length].url;
      while (performance.now() < windowEnd) {
        const result = await item(gateway, payer);
        done.push(result);
        // A refused request is retried after a pause, not in a tight loop.
        if (result.status !== 202) await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }),
  );
  await meterRead;
  const costWindow = meter.between(await costBefore, await costAfter);

  const arrivedAt = (a: Attempt) => (a.outcome && 'at' in a.outcome ? a.outcome.at : undefined);
  const inWindow = done.filter((a) => a.startedAt >= windowStart && a.startedAt < windowEnd);
  const completedInWindow = done.filter((a) => {
    const at = arrivedAt(a);
    return at !== undefined && at >= windowStart && at < windowEnd;
  }).length;
  const latencies = Float64Array.from(
    inWindow.flatMap((a) => (arrivedAt(a) === undefined ? [] : [arrivedAt(a)! - a.startedAt])),
  ).sort();
  const requestLatencies = Float64Array.from(inWindow.map((a) => a.answeredAt - a.startedAt)).sort();

  const refused = new Map<number, number>();
  for (const a of done) if (a.status !== 202) refused.set(a.status, (refused.get(a.status) ?? 0) + 1);
  const failed = (failure: string) =>
    done.filter((a) => a.outcome && 'failure' in a.outcome && a.outcome.failure === failure).length;
  const lost = failed('lost');
  const notCompleted = failed('not COMPLETED');
  const { badSignature, unparseable, duplicates, afterRefusal, unknown, otherEvents } = receiver.takeCounts();
  const refusedCount = [...refused.values()].reduce((a, b) => a + b, 0);
  const notes = [
    `${done.length} ${words.items} started (${inWindow.length} in the measured window), ${done.length - refusedCount} ${words.accepted}`,
    refusedCount > 0
      ? `${words.request} refused: ${[...refused].map(([status, n]) => `${n}×${status === 0 ? 'no answer' : status}`).join(', ')}`
      : '',
    lost > 0 ? `${lost} callbacks lost (none within ${receiver.drainMs / 1_000} s of the ${words.request})` : '',
    notCompleted > 0 ? `${notCompleted} ${words.finalEvent} callbacks not COMPLETED` : '',
    badSignature > 0 ? `${badSignature} callbacks failed verification (answered 401)` : '',
    unparseable > 0 ? `${unparseable} callbacks not JSON` : '',
    afterRefusal > 0
      ? `${afterRefusal} ${words.finalEvent} callbacks for ${words.items} whose ${words.request} was answered with an error (made after all)`
      : '',
    unknown > 0 ? `${unknown} ${words.finalEvent} callbacks for no item of this run` : '',
    duplicates > 0 ? `${duplicates} duplicate callbacks (at least once: not an error)` : '',
    otherEvents.size > 0 ? `other callbacks: ${[...otherEvents].map(([event, n]) => `${n}×${event}`).join(', ')}` : '',
  ].filter(Boolean);
  return {
    perSecond: completedInWindow / SECONDS,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    requestP99Ms: percentile(requestLatencies, 99),
    lost,
    errors: refusedCount + notCompleted + badSignature + unparseable + unknown,
    notes,
    cpu,
    cost: { window: costWindow, items: completedInWindow },
  };
}
