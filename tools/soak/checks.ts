import { Webhook } from 'standardwebhooks';
import { LEDGER_ACCOUNTS, accountSum, collectionTransferId, prnTransferId } from '@paygate/payments-domain';
import { verifyCallbackSignature } from '@paygate/signing';
import type { Callback } from './callback-receiver';
import type { RetryCounts } from './http';
import type { Flow } from './load';
import { moneyOutChecks, type MoneyOutFigures, type MoneyOutRun } from './money-out-checks';
import type { FinalState, MoneyOutFinal, PrnAtBiller } from './observe';
import type { ProcessEvent } from './supervisor';
import { count, tally } from './tally';

/** A fault the soak caused, other than the kills (those are process events). */
export interface Injection {
  /** e.g. "broker restart". */
  what: string;
  /** How it was done, e.g. "new connections held". */
  how: string;
  from: number;
  to: number;
}

/** What a run did, and what was read back after it: its collections, and its refunds and payouts (MoneyOutRun). */
export interface RunRecord extends MoneyOutRun {
  startedAt: number;
  seconds: number;
  apps: number;
  flows: Flow[];
  callbacks: Callback[];
  finals: Map<string, FinalState>;
  prns: Map<string, PrnAtBiller>;
  /** merchant id → UGX balance as the API shows it. */
  walletBalances: Map<string, number>;
  injections: Injection[];
  processEvents: ProcessEvent[];
  retries: RetryCounts;
  /** App exits other than the soak's kills are violations too, not only reported. */
  failOnExits: boolean;
}

/** The figures the CI spec asserts. */
export interface Figures extends MoneyOutFigures {
  started: number;
  acknowledged: number;
  final: number;
  /** Acknowledged, never final. */
  lost: number;
  neverAcknowledged: number;
  unexpectedAnswers: number;
  prnsPaidTwice: number;
  prnsMisreported: number;
  ledgerSum: number;
  ledgerMismatches: number;
  callbacksExpected: number;
  callbacksMissing: number;
  duplicateCallbacks: number;
  redelivered: number;
  unexpectedCallbacks: number;
  outOfOrder: number;
  signaturesChecked: number;
  invalidSignatures: number;
  kills: number;
  latencyMs: { p50: number; p99: number; worst: number };
}

export interface Report {
  lines: string[];
  /** Each violation, one line; empty when the run passed. */
  failures: string[];
  figures: Figures;
  passed: boolean;
}

const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The callbacks a final collection must have caused, in the order the merchant must get them (docs/webhooks.md): its
 * own, then its refund's once the refund is final in `moneyOutFinals` (the soak asks for one refund of a collection
 * at most).
 */
export function expectedCallbacks(
  flow: Flow,
  final: FinalState,
  moneyOutFinals?: Map<string, MoneyOutFinal>,
): string[] {
  const refund = flow.refundReference ? moneyOutFinals?.get(flow.refundReference) : undefined;
  return [...collectionCallbacks(flow, final), ...(refund ? [`refund.${refund.status.toLowerCase()}`] : [])];
}

function collectionCallbacks(flow: Flow, final: FinalState): string[] {
  const settled = `transaction.${final.status.toLowerCase()}`;
  if (!flow.prn) return flow.requireConfirmation ? ['transaction.charges', settled] : [settled];
  // A refused PRN's payment.failed precedes the collection's callbacks (libs/webhooks callback-order.ts),
  // also when the verdict deadline cancelled the collection first (a verdict late by an outage).
  if (final.statusMessage.startsWith('PRN not eligible') || final.servicePaymentMessage?.startsWith('PRN not eligible'))
    return ['payment.failed', settled];
  return [settled, `payment.${String(final.servicePaymentStatus).toLowerCase()}`];
}

/**
 * Both signatures: Standard Webhooks (checked with the standardwebhooks package, at arrival time) and hmac-signature
 * (over the record's fields, or the refund's for refund.*).
 */
export function signatureValid(callback: Callback, signingKey: string): boolean {
  const { headers, body, payload } = callback;
  const timestamp = Number(headers['webhook-timestamp']);
  if (!Number.isSafeInteger(timestamp) || Math.abs(callback.at / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS)
    return false;
  const expected = new Webhook(new TextEncoder().encode(signingKey), { format: 'raw' }).sign(
    String(headers['webhook-id']),
    new Date(timestamp * 1000),
    body,
  );
  const standard = String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(expected);
  return (
    standard && verifyCallbackSignature(signingKey, callback.event, payload, String(headers['hmac-signature'] ?? ''))
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What one check found: its report lines and its violations. */
interface Findings {
  lines: string[];
  failures: string[];
}

type Acknowledged = Flow & { internalReference: string };

/** Judges a run: one line per check, and every violation. */
export function judge(run: RunRecord): Report {
  const at = (time: number) => `+${seconds(time - run.startedAt)} (${new Date(time).toISOString().slice(11, 19)})`;
  const acknowledged = run.flows.filter((flow): flow is Acknowledged => flow.internalReference !== undefined);
  const finals = acknowledged.filter((flow) => run.finals.has(flow.internalReference));

  const faults = injected(run, at);
  const load = collections(run, acknowledged, finals);
  const prns = prnPayments(run, acknowledged);
  const ledger = walletLedger(run, finals);
  const money = moneyOutChecks(run);
  const sent = callbacks(run, finals, at);

  const sections = [faults, load, prns, ledger, money, sent];
  const failures = sections.flatMap((section) => section.failures);
  const passed = failures.length === 0;
  const what = [`${faults.kills} kills`, ...run.injections.map((injection) => injection.what)].join(', ');
  const verdict = `Soak: ${run.seconds} s of load, ${run.apps} apps, ${what}: ${passed ? 'passed' : `FAILED (${failures.length} violations)`}`;
  return {
    lines: [...sections.flatMap((section) => section.lines), verdict],
    failures,
    passed,
    figures: {
      started: run.flows.length,
      acknowledged: acknowledged.length,
      final: finals.length,
      lost: acknowledged.length - finals.length,
      neverAcknowledged: run.flows.length - acknowledged.length,
      unexpectedAnswers: load.unexpectedAnswers,
      prnsPaidTwice: prns.paidTwice,
      prnsMisreported: prns.misreported,
      ledgerSum: ledger.sum,
      ledgerMismatches: ledger.failures.length,
      callbacksExpected: sent.counts.expected,
      callbacksMissing: sent.counts.missing,
      duplicateCallbacks: sent.counts.duplicates,
      redelivered: sent.counts.redelivered,
      unexpectedCallbacks: sent.counts.unexpected,
      outOfOrder: sent.counts.outOfOrder,
      signaturesChecked: sent.counts.signatures,
      invalidSignatures: sent.counts.invalid,
      kills: faults.kills,
      latencyMs: sent.latencyMs,
      ...money.figures,
    },
  };
}

/**
 * The kills, the outages, and what the platform did meanwhile: exits and failed starts, not violations unless asked.
 */
function injected(run: RunRecord, at: (time: number) => string): Findings & { kills: number } {
  const lines: string[] = [];
  const kills = run.processEvents.filter((event) => event.kind === 'killed');
  for (const kill of kills) {
    const ready = run.processEvents.find(
      (event) => event.app === kill.app && event.kind === 'ready' && event.at >= kill.at,
    );
    lines.push(
      `injected: kill -9 ${kill.app} at ${at(kill.at)}, ${ready ? `ready again in ${seconds(ready.at - kill.at)}` : 'never ready again'}`,
    );
  }
  for (const injection of run.injections)
    lines.push(
      `injected: ${injection.what} from ${at(injection.from)} to ${at(injection.to)} (${seconds(injection.to - injection.from)}; ${injection.how})`,
    );
  const troubles = run.processEvents.filter((event) => event.kind !== 'killed' && event.kind !== 'ready');
  lines.push(
    `platform: ${troubles.length} app start failures or exits the soak did not cause${run.failOnExits ? '' : ' (reported only: SOAK_FAIL_ON_EXITS=0)'}`,
  );
  for (const event of troubles)
    lines.push(`platform: ${event.app} ${event.kind} at ${at(event.at)}: ${(event.detail ?? '').slice(0, 200)}`);
  const failures = run.failOnExits ? troubles.map((event) => `${event.app} ${event.kind} at ${at(event.at)}`) : [];
  return { lines, failures, kills: kills.length };
}

/** Every collection acknowledged, every acknowledged one final, no answer a retry could not help. */
function collections(
  run: RunRecord,
  acknowledged: Acknowledged[],
  finals: Acknowledged[],
): Findings & { unexpectedAnswers: number } {
  const { flows } = run;
  const unexpected = flows.flatMap((flow) => flow.unexpected.map((what) => ({ flow, what })));
  const lost = acknowledged.filter((flow) => !run.finals.has(flow.internalReference));
  const late = acknowledged.filter((flow) => flow.attempts > 1);
  const statuses = tally(count(finals, (flow) => run.finals.get(flow.internalReference)!.status));
  return {
    lines: [
      `load: ${flows.length} collections started (${tally(count(flows, (flow) => flow.kind))}); requests retried: ${tally(run.retries) || 'none'}`,
      `answers no retry could help: ${unexpected.length}${unexpected.length ? ` (${tally(count(unexpected, ({ flow, what }) => `${flow.scenario}: ${what}`))})` : ''}`,
      `collections: ${acknowledged.length} acknowledged of ${flows.length} (${late.length} only after retries), ${finals.length} final (${statuses}), ${lost.length} lost`,
    ],
    failures: [
      ...unexpected.map(({ flow, what }) => `unexpected answer: ${flow.merchantReference} (${flow.scenario}) ${what}`),
      ...flows
        .filter((flow) => !flow.internalReference)
        .map((flow) => `never acknowledged: ${flow.merchantReference} (${flow.scenario})`),
      ...lost.map((flow) => `not final: ${flow.internalReference} ${flow.merchantReference} (${flow.scenario})`),
    ],
    unexpectedAnswers: unexpected.length,
  };
}

/** Each PRN paid at most once at the biller, and exactly when its service payment says COMPLETED. */
function prnPayments(
  run: RunRecord,
  acknowledged: Acknowledged[],
): Findings & { paidTwice: number; misreported: number } {
  const payments = (flow: Flow) => run.prns.get(String(flow.prn))?.payments ?? 0;
  const prnFlows = acknowledged.filter((flow) => flow.prn);
  const paidTwice = prnFlows.filter((flow) => payments(flow) > 1);
  const misreported = prnFlows.filter((flow) => {
    const final = run.finals.get(flow.internalReference);
    return final !== undefined && payments(flow) > 0 !== (final.servicePaymentStatus === 'COMPLETED');
  });
  return {
    lines: [
      `PRNs: ${prnFlows.length} collected for, ${prnFlows.filter((flow) => payments(flow) === 1).length} paid once at the biller, ${paidTwice.length} paid more than once, ${misreported.length} whose payment status disagrees with the biller`,
    ],
    failures: [
      ...paidTwice.map((flow) => `PRN ${flow.prn} paid ${payments(flow)} times (${flow.internalReference})`),
      ...misreported.map(
        (flow) =>
          `PRN ${flow.prn}: ${payments(flow)} payments at the biller, payment ${run.finals.get(flow.internalReference)?.servicePaymentStatus} (${flow.internalReference})`,
      ),
    ],
    paidTwice: paidTwice.length,
    misreported: misreported.length,
  };
}

/**
 * The ledger from its events: all accounts sum to zero, no transfer posted twice, a credit for
 * each completed collection and no other, a capture for each PRN the biller was paid, and the
 * read model's balances equal to the ledger's.
 */
function walletLedger(run: RunRecord, finals: Acknowledged[]): Findings & { sum: number } {
  const { ledger } = run;
  const sum = accountSum(ledger.balances);
  const posted = count(ledger.transfers, (transfer) => transfer.transferId);
  const postedTwice = Object.entries(posted).filter(([, times]) => times > 1);
  const failures: string[] = [];
  if (sum !== 0) failures.push(`accounts sum to ${sum}, not 0`);
  failures.push(...postedTwice.map(([id, times]) => `transfer ${id} posted ${times} times`));
  for (const flow of finals) {
    const ref = flow.internalReference;
    const { status } = run.finals.get(ref)!;
    if ((status === 'COMPLETED') !== collectionTransferId(ref) in posted)
      failures.push(`${ref} ${status} but ${status === 'COMPLETED' ? 'not credited' : 'credited'}`);
    const paid = run.prns.get(String(flow.prn))?.payments ?? 0;
    if (flow.prn && paid > 0 !== prnTransferId(ref) in posted)
      failures.push(
        `${ref}: PRN ${flow.prn} paid at the biller ${paid} times, capture ${prnTransferId(ref) in posted ? 'posted' : 'missing'}`,
      );
  }
  for (const [merchantId, shown] of run.walletBalances) {
    const balance = ledger.balances[LEDGER_ACCOUNTS.merchantWallet(merchantId, 'UGX')] ?? 0;
    if (shown !== balance) failures.push(`wallet of ${merchantId}: API shows ${shown}, ledger holds ${balance}`);
    if (balance < 0) failures.push(`wallet of ${merchantId} is negative: ${balance}`);
  }
  return {
    lines: [
      `wallet ledger: sum ${sum} over ${ledger.transfers.length} transfers in ${ledger.wallets} wallets; ${postedTwice.length} transfers posted twice; ${failures.length} disagreements with outcomes, biller or read model`,
    ],
    failures: failures.map((failure) => `ledger: ${failure}`),
    sum,
  };
}

/**
 * Per final collection: each callback its outcome (and its refund's) causes under exactly one
 * webhook-id (a redelivery under the same id and body is fine), first arrivals in the documented
 * order, no other callback, every signature valid; and the time from the 202 to the last of the
 * collection's own.
 */
function callbacks(run: RunRecord, finals: Acknowledged[], at: (time: number) => string) {
  const failures: string[] = [];
  const counts = {
    expected: 0,
    single: 0,
    missing: 0,
    duplicates: 0,
    redelivered: 0,
    unexpected: 0,
    outOfOrder: 0,
    signatures: 0,
    invalid: 0,
  };
  const latencies: { ms: number; flow: Acknowledged }[] = [];
  const byReference = new Map<string, Callback[]>();
  for (const callback of run.callbacks) {
    if (!byReference.has(callback.internalReference)) byReference.set(callback.internalReference, []);
    byReference.get(callback.internalReference)!.push(callback);
  }
  for (const flow of finals) {
    const ref = flow.internalReference;
    const expected = expectedCallbacks(flow, run.finals.get(ref)!, run.moneyOutFinals);
    const received = byReference.get(ref) ?? [];
    const problem = (what: string) => failures.push(`callbacks of ${ref} (${flow.scenario}): ${what}`);
    counts.expected += expected.length;
    for (const callback of received) {
      counts.signatures += 1;
      if (!signatureValid(callback, flow.merchant.signingKey)) {
        counts.invalid += 1;
        problem(`${callback.event} under ${callback.headers['webhook-id']}: signature invalid`);
      }
      if (callback.merchant !== flow.merchant.index)
        problem(`${callback.event} sent to merchant ${callback.merchant}'s URL`);
    }
    // Received is in arrival order, so this is each event's first arrival, in order.
    const arrivals: { event: string; at: number }[] = [];
    for (const event of new Set(received.map((callback) => callback.event))) {
      const copies = received.filter((callback) => callback.event === event);
      if (!expected.includes(event)) {
        counts.unexpected += copies.length;
        problem(`unexpected ${event}`);
        continue;
      }
      const ids = new Set(copies.map((callback) => callback.headers['webhook-id']));
      if (ids.size === 1) counts.single += 1;
      else {
        counts.duplicates += ids.size - 1;
        problem(`${event} under ${ids.size} webhook-ids: ${[...ids].join(', ')}`);
      }
      counts.redelivered += copies.length - ids.size;
      for (const id of ids) {
        if (
          new Set(copies.filter((callback) => callback.headers['webhook-id'] === id).map((callback) => callback.body))
            .size > 1
        )
          problem(`${event} under ${id} redelivered with another body`);
      }
      arrivals.push({ event, at: copies[0].at });
    }
    const missing = expected.filter((event) => !arrivals.some((arrival) => arrival.event === event));
    counts.missing += missing.length;
    if (missing.length)
      problem(
        `missing ${missing.join(', ')} (received ${received.map((callback) => callback.event).join(', ') || 'none'})`,
      );
    const order = arrivals.map((arrival) => arrival.event);
    if (order.join() !== expected.filter((event) => order.includes(event)).join()) {
      counts.outOfOrder += 1;
      problem(`arrived in the order ${order.join(', ')}; expected ${expected.join(', ')}`);
    }
    // The collection's own callbacks: a refund's comes when the refund was asked for and paid, later.
    const own = arrivals.filter((arrival) => !arrival.event.startsWith('refund.'));
    if (missing.length === 0 && flow.acknowledgedAt)
      latencies.push({ ms: Math.max(...own.map((arrival) => arrival.at)) - flow.acknowledgedAt, flow });
  }
  // Callbacks about no final collection: about one never acknowledged (its 202 was lost) they are expected; about
  // nothing the run made, a violation.
  const finalReferences = new Set(finals.map((flow) => flow.internalReference));
  const runReferences = new Set(run.flows.map((flow) => flow.merchantReference));
  const others = run.callbacks.filter((callback) => !finalReferences.has(callback.internalReference));
  const foreign = others.filter((callback) => !runReferences.has(String(callback.payload.merchant_reference)));
  counts.unexpected += foreign.length;
  failures.push(
    ...foreign.map((callback) => `callback about no collection of this run: ${callback.body.slice(0, 200)}`),
  );

  latencies.sort((a, b) => a.ms - b.ms);
  const sorted = latencies.map((latency) => latency.ms);
  const worst = latencies[latencies.length - 1];
  const latencyMs = { p50: percentile(sorted, 50), p99: percentile(sorted, 99), worst: worst?.ms ?? 0 };
  const c = counts;
  return {
    lines: [
      `callbacks: ${c.expected} expected for ${finals.length} final collections; ${c.single} received under exactly one webhook-id, ${c.redelivered} redelivered (deduplicable by webhook-id), ` +
        `${c.duplicates} duplicates under another webhook-id, ${c.missing} missing, ${c.unexpected} unexpected, ${c.outOfOrder} collections out of order; signatures valid ${c.signatures - c.invalid}/${c.signatures}` +
        (others.length > foreign.length
          ? `; ${others.length - foreign.length} more about collections not acknowledged or not final`
          : ''),
      `acknowledgement → final callback: p50 ${seconds(latencyMs.p50)}, p99 ${seconds(latencyMs.p99)}, worst ${seconds(latencyMs.worst)}` +
        (worst
          ? ` (${worst.flow.internalReference}, ${worst.flow.scenario}, acknowledged at ${at(worst.flow.acknowledgedAt!)})`
          : ''),
    ],
    failures,
    counts,
    latencyMs,
  };
}
