import { ReversePayout, SettleMoneyOut } from '@paygate/contracts';
import { runProcess, type ProcessEffects, type RunEnd } from '@paygate/decider';
import {
  type MoneyOut,
  type MoneyOutCall,
  type MoneyOutCommand,
  type MoneyOutEffect,
  type MoneyOutEvent,
  type MoneyOutInput,
  type MoneyOutRunState,
  type MoneyOutState,
  type PayoutDayCommand,
  type PayoutDayEvent,
  type PayoutDayState,
  payoutDayId,
  type RefundAllocationCommand,
  type RefundAllocationEvent,
  type RefundAllocationState,
  moneyOutProcess,
  type MoneyOutProcessConfig,
} from '@paygate/disbursements-domain';
import type { DeciderRuntime } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { CommandBus } from '@paygate/messaging';

/** A state its merchant is told of, counted once when entered (a REVERSED payout was COMPLETED before). */
const isFinal = (moneyOut: MoneyOut) => moneyOut.status !== 'PENDING' && moneyOut.status !== 'PENDING_APPROVAL';

export type MoneyOutRuntime = DeciderRuntime<MoneyOutCommand, MoneyOutEvent, MoneyOutState>;
export type PayoutDayRuntime = DeciderRuntime<PayoutDayCommand, PayoutDayEvent, PayoutDayState>;
export type RefundAllocationRuntime = DeciderRuntime<
  RefundAllocationCommand,
  RefundAllocationEvent,
  RefundAllocationState
>;

export interface MoneyOutRunsDeps {
  moneyOuts: MoneyOutRuntime;
  allocations: RefundAllocationRuntime;
  payoutDays: PayoutDayRuntime;
  /** The payments contract: the wallet holds are the payments context's. */
  commands: CommandBus;
  call: (call: MoneyOutCall, streamId: string, moneyOut: MoneyOut) => Promise<MoneyOutInput>;
  config: MoneyOutProcessConfig;
  /** Told of each money-out that reached a final status (money-out-metrics.ts). */
  finished: (kind: string, status: string) => void;
  log: Logger;
  now: () => Date;
}

/**
 * Runs of the money-out process with libs/decider's runProcess: a money-out's commands go to its stream, its hold's
 * settlement to the wallet (payments.settleMoneyOut), a reversed payout's credit back to the wallet too
 * (payments.reversePayout), a refund's allocation to its collection's allocation stream, a payout not made out of its
 * day's count.
 * Every step is idempotent, so a run repeated after a crash (its timer fires again) moves nothing twice. One process
 * runs a money-out's runs one after the other.
 */
export class MoneyOutRuns {
  private readonly process;
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: MoneyOutRunsDeps) {
    this.process = moneyOutProcess(deps.config);
  }

  run(streamId: string, input: MoneyOutInput): Promise<RunEnd | undefined> {
    const previous = this.running.get(streamId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.runNow(streamId, input));
    this.running.set(streamId, run);
    void run
      .finally(() => {
        if (this.running.get(streamId) === run) this.running.delete(streamId);
      })
      .catch(() => undefined);
    return run;
  }

  private async runNow(streamId: string, input: MoneyOutInput): Promise<RunEnd | undefined> {
    const { moneyOuts, allocations, payoutDays, commands, call, log } = this.deps;
    const now = () => this.deps.now().toISOString();
    const { state: moneyOut } = await moneyOuts.load(streamId);
    if (!moneyOut) return undefined;
    const { request } = moneyOut;
    const effects: ProcessEffects<MoneyOutInput, MoneyOutRunState, MoneyOutEffect, MoneyOutCall> = {
      execute: async (command, run) => {
        switch (command.type) {
          case 'SettleWallet':
            await commands.send(
              new SettleMoneyOut({
                merchantId: request.merchantId,
                currency: request.currency,
                kind: request.kind,
                reference: request.reference,
                outcome: command.outcome,
              }),
            );
            return { state: { ...run, now: now() }, input: { type: 'Recorded' } };
          case 'UncountPayout':
            await payoutDays.handle(payoutDayId(request.merchantId, request.currency, request.requestedAt), {
              type: 'Uncount',
              payoutReference: request.reference,
              at: now(),
            });
            return { state: { ...run, now: now() }, input: { type: 'Recorded' } };
          case 'CreditReversal':
            await commands.send(
              new ReversePayout({
                merchantId: request.merchantId,
                currency: request.currency,
                reference: request.reference,
              }),
            );
            return { state: { ...run, now: now() }, input: { type: 'Recorded' } };
          case 'SettleAllocation':
            await allocations.handle(request.internalReference ?? '', {
              type: command.outcome === 'PAID' ? 'MarkRefunded' : 'Release',
              refundReference: request.reference,
              at: now(),
            });
            return { state: { ...run, now: now() }, input: { type: 'Recorded' } };
          default: {
            const handled = await moneyOuts.handle(streamId, command);
            if (handled.state && handled.state.status !== run.moneyOut.status && isFinal(handled.state))
              this.deps.finished(request.kind, handled.state.status);
            return { state: { moneyOut: handled.state ?? run.moneyOut, now: now() }, input: { type: 'Recorded' } };
          }
        }
      },
      call: (outgoing, run) => call(outgoing, streamId, run.moneyOut),
      rejection: ({ message }) => new Error(message),
    };
    const { end } = await runProcess(this.process, input, { moneyOut, now: now() }, effects);
    if (end.note) log.info(end.note, { money_out: request.kind, reference: request.reference });
    return end;
  }
}
