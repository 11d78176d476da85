import { Webhook } from 'standardwebhooks';
import { LEDGER_ACCOUNTS } from '@paygate/contracts';
import { accountSum, collectionTransferId, prnTransferId } from '@paygate/payments-domain';
import { verifyCollectionSignature } from '@paygate/signing';
import type { Callback } from './callback-receiver';
import type { RetryCounts } from './http';
import type { Flow } from './load';
import type { FinalState, Ledger, PrnAtBiller } from './observe';
import type { ProcessEvent } from './supervisor';

/** A fault the soak caused, other than the kills (those are process events). */
export interface Injection {
  /** e.g. "broker restart". */
  what: string;
  /** How it was done, e.g. "new connections held". */
  how: string;
  from: number;
  to: number;
}

export interface RunRecord {
  startedAt: number;
  seconds: number;
  apps: number;
  flows: Flow[];
  callbacks: Callback[];
  finals: Map<string, FinalState>;
  prns: Map<string, PrnAtBiller>;
  ledger: Ledger;
  /** merchant id → UGX balance as the API shows it. */
  walletBalances: Map<string, number>;
  injections: Injection[];
  processEvents: ProcessEvent[];
  retries: RetryCounts;
  /** App exits other than the soak's kills are violations too, not only reported. */
  failOnExits: boolean;
}

/** The figures the CI spec asserts. */
export interface Figures {
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

/** The callbacks a final collection must have caused, in the order the merchant must get them (docs/webhooks.md). */
export function expectedCallbacks(flow: Flow, final: FinalState): string[] {
  const settled = `transaction.${final.status.toLowerCase()}`;
  if (!flow.prn) return flow.requireConfirmation ? ['transaction.charges', settled] : [settled];
  // A refused PRN cancels the collection before it opens: payment.failed comes first.
  if (final.statusMessage.startsWith('PRN not eligible')) return ['payment.failed', settled];
  return [settled, `payment.${String(final.servicePaymentStatus).toLowerCase()}`];
}

/** Both signatures: Standard Webhooks (checked with the standardwebhooks package, at arrival time) and hmac-signature. */
export function signatureValid(callback: Callback, signingKey: string): boolean {
  const { headers, body, payload } = callback;
  const timestamp = Number(headers['webhook-timestamp']);
  if (!Number.isSafeInteger(timestamp) || Math.abs(callback.at / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = new Webhook(new TextEncoder().encode(signingKey), { format: 'raw' }).sign(String(headers['webhook-id']), new Date(timestamp * 1000), body);
  const standard = String(headers['webhook-signature'] ?? '').split(' ').includes(expected);
  const record = payload as { id: number; internal_reference: string; transaction_status: string; merchant_reference: string };
  return standard && verifyCollectionSignature(signingKey, record, String(headers['hmac-signature'] ?? ''));
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const tally = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([what, count]) => `${what} ×${count}`)
    .join(', ');
const count = <T>(items: T[], key: (item: T) => string) => items.reduce<Record<string, number>>((counts, item) => ({ ...counts, [key(item)]: (counts[key(item)] ?? 0) + 1 }), {});

/** Judges a run: one line per check, and every violation. */
export function judge(run: RunRecord): Report {
  const lines: string[] = [];
  const failures: string[] = [];
  const at = (time: number) => `+${seconds(time - run.startedAt)} (${new Date(time).toISOString().slice(11, 19)})`;

  // ---- what was injected ----
  const kills = run.processEvents.filter((event) => event.kind === 'killed');
  for (const kill of kills) {
    const ready = run.processEvents.find((event) => event.app === kill.app && event.kind === 'ready' && event.at >= kill.at);
    lines.push(`injected: kill -9 ${kill.app} at ${at(kill.at)}, ${ready ? `ready again in ${seconds(ready.at - kill.at)}` : 'never ready again'}`);
  }
  for (const injection of run.injections) lines.push(`injected: ${injection.what} from ${at(injection.from)} to ${at(injection.to)} (${seconds(injection.to - injection.from)}; ${injection.how})`);
  // Not violations in themselves (the soak starts the app again): what the platform did under the faults.
  const troubles = run.processEvents.filter((event) => event.kind !== 'killed' && event.kind !== 'ready');
  lines.push(`platform: ${troubles.length} app start failures or exits, each started again by the soak${run.failOnExits ? ' (violations: SOAK_FAIL_ON_EXITS=1)' : ''}`);
  for (const event of troubles) lines.push(`platform: ${event.app} ${event.kind} at ${at(event.at)}: ${(event.detail ?? '').slice(0, 200)}`);
  if (run.failOnExits) failures.push(...troubles.map((event) => `${event.app} ${event.kind} at ${at(event.at)}`));

  // ---- load and acknowledgements ----
  const flows = run.flows;
  const acknowledged = flows.filter((flow) => flow.internalReference);
  const neverAcknowledged = flows.filter((flow) => !flow.internalReference);
  const late = acknowledged.filter((flow) => flow.attempts > 1);
  lines.push(`load: ${flows.length} collections started (${tally(count(flows, (flow) => flow.kind))}); requests retried: ${tally(run.retries) || 'none'}`);
  const unexpected = flows.flatMap((flow) => flow.unexpected.map((what) => `${flow.merchantReference} (${flow.scenario}) ${what}`));
  lines.push(`answers no retry could help: ${unexpected.length}${unexpected.length ? ` (${tally(count(unexpected, (what) => what.replace(/^\S+ /, '')))})` : ''}`);
  failures.push(...unexpected.map((what) => `unexpected answer: ${what}`));
  failures.push(...neverAcknowledged.map((flow) => `never acknowledged: ${flow.merchantReference} (${flow.scenario})`));

  const finals = acknowledged.filter((flow) => run.finals.has(String(flow.internalReference)));
  const lost = acknowledged.filter((flow) => !run.finals.has(String(flow.internalReference)));
  lines.push(
    `collections: ${acknowledged.length} acknowledged of ${flows.length} (${late.length} only after retries), ${finals.length} final (${tally(count(finals, (flow) => run.finals.get(String(flow.internalReference))!.status))}), ${lost.length} lost`,
  );
  failures.push(...lost.map((flow) => `not final: ${flow.internalReference} ${flow.merchantReference} (${flow.scenario})`));

  // ---- PRNs at the sandbox biller ----
  const prnFlows = acknowledged.filter((flow) => flow.prn);
  const paidTwice = prnFlows.filter((flow) => (run.prns.get(String(flow.prn))?.payments ?? 0) > 1);
  const misreported = prnFlows.filter((flow) => {
    const paid = (run.prns.get(String(flow.prn))?.payments ?? 0) > 0;
    const final = run.finals.get(String(flow.internalReference));
    return final !== undefined && paid !== (final.servicePaymentStatus === 'COMPLETED');
  });
  const paidOnce = prnFlows.filter((flow) => run.prns.get(String(flow.prn))?.payments === 1);
  lines.push(`PRNs: ${prnFlows.length} collected for, ${paidOnce.length} paid once at the biller, ${paidTwice.length} paid more than once, ${misreported.length} whose payment status disagrees with the biller`);
  failures.push(...paidTwice.map((flow) => `PRN ${flow.prn} paid ${run.prns.get(String(flow.prn))?.payments} times (${flow.internalReference})`));
  failures.push(...misreported.map((flow) => `PRN ${flow.prn}: ${run.prns.get(String(flow.prn))?.payments} payments at the biller, payment ${run.finals.get(String(flow.internalReference))?.servicePaymentStatus} (${flow.internalReference})`));

  // ---- the wallet ledger ----
  const { ledger } = run;
  const sum = accountSum(ledger.balances);
  const transferCounts = count(ledger.transfers, (transfer) => transfer.transferId);
  const postedTwice = Object.entries(transferCounts).filter(([, times]) => times > 1);
  const ledgerProblems: string[] = [];
  if (sum !== 0) ledgerProblems.push(`accounts sum to ${sum}, not 0`);
  ledgerProblems.push(...postedTwice.map(([id, times]) => `transfer ${id} posted ${times} times`));
  for (const flow of finals) {
    const ref = String(flow.internalReference);
    const completed = run.finals.get(ref)!.status === 'COMPLETED';
    if (completed !== collectionTransferId(ref) in transferCounts) ledgerProblems.push(`${ref} ${run.finals.get(ref)!.status} but ${completed ? 'not credited' : 'credited'}`);
    if (flow.prn && (run.prns.get(flow.prn)?.payments ?? 0) > 0 !== prnTransferId(ref) in transferCounts) ledgerProblems.push(`${ref}: PRN ${flow.prn} paid at the biller ${run.prns.get(flow.prn)?.payments ?? 0} times, capture ${prnTransferId(ref) in transferCounts ? 'posted' : 'missing'}`);
  }
  for (const [merchantId, shown] of run.walletBalances) {
    const posted = ledger.balances[LEDGER_ACCOUNTS.merchantWallet(merchantId, 'UGX')] ?? 0;
    if (shown !== posted) ledgerProblems.push(`wallet of ${merchantId}: API shows ${shown}, ledger holds ${posted}`);
    if (posted < 0) ledgerProblems.push(`wallet of ${merchantId} is negative: ${posted}`);
  }
  lines.push(`wallet ledger: sum ${sum} over ${ledger.transfers.length} transfers in ${ledger.wallets} wallets; ${postedTwice.length} transfers posted twice; ${ledgerProblems.length} disagreements with outcomes, biller or read model`);
  failures.push(...ledgerProblems.map((problem) => `ledger: ${problem}`));

  // ---- callbacks ----
  const byReference = new Map<string, Callback[]>();
  for (const callback of run.callbacks) byReference.set(callback.internalReference, [...(byReference.get(callback.internalReference) ?? []), callback]);
  const known = new Set(acknowledged.map((flow) => String(flow.internalReference)));
  const strays = run.callbacks.filter((callback) => !known.has(callback.internalReference));
  const c = { expected: 0, missing: 0, duplicates: 0, redelivered: 0, unexpected: 0, outOfOrder: 0, signatures: 0, invalid: 0 };
  const latencies: { ms: number; flow: Flow }[] = [];
  for (const flow of finals) {
    const ref = String(flow.internalReference);
    const expected = expectedCallbacks(flow, run.finals.get(ref)!);
    const received = byReference.get(ref) ?? [];
    c.expected += expected.length;
    const problem = (what: string) => failures.push(`callbacks of ${ref} (${flow.scenario}): ${what}`);
    for (const callback of received) {
      c.signatures += 1;
      if (!signatureValid(callback, flow.merchant.signingKey)) {
        c.invalid += 1;
        problem(`${callback.event} under ${callback.headers['webhook-id']}: signature invalid`);
      }
      if (callback.merchant !== flow.merchant.index) problem(`${callback.event} sent to merchant ${callback.merchant}'s URL`);
    }
    const firstArrival: { event: string; at: number }[] = [];
    for (const event of new Set(received.map((callback) => callback.event))) {
      const copies = received.filter((callback) => callback.event === event);
      if (!expected.includes(event)) {
        c.unexpected += copies.length;
        problem(`unexpected ${event}`);
        continue;
      }
      const ids = new Set(copies.map((callback) => callback.headers['webhook-id']));
      if (ids.size > 1) {
        c.duplicates += ids.size - 1;
        problem(`${event} under ${ids.size} webhook-ids: ${[...ids].join(', ')}`);
      }
      c.redelivered += copies.length - ids.size;
      for (const id of ids) {
        if (new Set(copies.filter((callback) => callback.headers['webhook-id'] === id).map((callback) => callback.body)).size > 1) problem(`${event} under ${id} redelivered with another body`);
      }
      firstArrival.push({ event, at: Math.min(...copies.map((callback) => callback.at)) });
    }
    const missing = expected.filter((event) => !firstArrival.some((arrival) => arrival.event === event));
    c.missing += missing.length;
    if (missing.length) problem(`missing ${missing.join(', ')} (received ${received.map((callback) => callback.event).join(', ') || 'none'})`);
    const order = firstArrival
      .filter((arrival) => expected.includes(arrival.event))
      .sort((a, b) => a.at - b.at)
      .map((arrival) => arrival.event);
    if (order.join() !== expected.filter((event) => order.includes(event)).join()) {
      c.outOfOrder += 1;
      problem(`arrived in the order ${order.join(', ')}; expected ${expected.join(', ')}`);
    }
    if (missing.length === 0 && flow.acknowledgedAt) latencies.push({ ms: Math.max(...firstArrival.map((arrival) => arrival.at)) - flow.acknowledgedAt, flow });
  }
  lines.push(
    `callbacks: ${c.expected} expected for ${finals.length} final collections; ${c.expected - c.missing} received under exactly one webhook-id each, ${c.redelivered} redelivered (deduplicable by webhook-id), ` +
      `${c.duplicates} duplicates under another webhook-id, ${c.missing} missing, ${c.unexpected} unexpected, ${c.outOfOrder} out of order; signatures valid ${c.signatures - c.invalid}/${c.signatures}` +
      (strays.length ? `; ${strays.length} about collections never acknowledged` : ''),
  );

  latencies.sort((a, b) => a.ms - b.ms);
  const sorted = latencies.map((latency) => latency.ms);
  const worst = latencies[latencies.length - 1];
  lines.push(
    `acknowledgement → final callback: p50 ${seconds(percentile(sorted, 50))}, p99 ${seconds(percentile(sorted, 99))}, worst ${seconds(worst?.ms ?? 0)}` +
      (worst ? ` (${worst.flow.internalReference}, ${worst.flow.scenario}, acknowledged at ${at(worst.flow.acknowledgedAt!)})` : ''),
  );

  const passed = failures.length === 0;
  const injected = [`${kills.length} kills`, ...run.injections.map((injection) => injection.what)].join(', ');
  lines.push(`Soak: ${run.seconds} s of load, ${run.apps} apps, ${injected}: ${passed ? 'passed' : `FAILED (${failures.length} violations)`}`);
  return {
    lines,
    failures,
    passed,
    figures: {
      started: flows.length,
      acknowledged: acknowledged.length,
      final: finals.length,
      lost: lost.length,
      neverAcknowledged: neverAcknowledged.length,
      unexpectedAnswers: unexpected.length,
      prnsPaidTwice: paidTwice.length,
      prnsMisreported: misreported.length,
      ledgerSum: sum,
      ledgerMismatches: ledgerProblems.length,
      callbacksExpected: c.expected,
      callbacksMissing: c.missing,
      duplicateCallbacks: c.duplicates,
      redelivered: c.redelivered,
      unexpectedCallbacks: c.unexpected,
      outOfOrder: c.outOfOrder,
      signaturesChecked: c.signatures,
      invalidSignatures: c.invalid,
      kills: kills.length,
      latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), worst: worst?.ms ?? 0 },
    },
  };
}
