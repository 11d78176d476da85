import { runProcess } from '@paygate/decider';
import type { MoneyOutKind, MoneyOutRequest } from './events';
import { decideMoneyOut, evolveMoneyOut, type MoneyOut, type MoneyOutState } from './money-out';
import {
  moneyOutProcess,
  type MoneyOutCall,
  type MoneyOutEffect,
  type MoneyOutInput,
  type MoneyOutRunState,
} from './money-out-process';

export const T0 = '2026-11-28T10:00:00.000Z';
export const POLL_MS = 30_000;
export const ATTENTION_MS = 15 * 60_000;
export const APPROVAL_MS = 24 * 3_600_000;
export const REVERSAL_WATCH_MS = 5 * 60_000;

export const refundRequest = (overrides: Partial<MoneyOutRequest> = {}): MoneyOutRequest => ({
  kind: 'REFUND',
  merchantId: 'mer_1',
  reference: 'rf-1',
  currency: 'UGX',
  requestedAmount: 20_000,
  amount: 20_000,
  fee: 0,
  providerCode: 'mtn_momo_ug',
  internalReference: 'PGREF000000000000000000001',
  merchantReference: 'order-1001',
  msisdn: '256772000001',
  recipientName: null,
  reason: null,
  livemode: false,
  requestedAt: T0,
  ...overrides,
});

export const payoutRequest = (overrides: Partial<MoneyOutRequest> = {}): MoneyOutRequest =>
  refundRequest({
    kind: 'PAYOUT' as MoneyOutKind,
    reference: 'po-1',
    internalReference: null,
    merchantReference: null,
    fee: 500,
    ...overrides,
  });

/** A money-out with its history: the request, then what was recorded. */
export function given(request: MoneyOutRequest, ...commands: Parameters<typeof decideMoneyOut>[0][]): MoneyOut {
  return givenRequest({ type: 'Request', request }, ...commands);
}

/** As `given`, from a request command of its own (an approval threshold, who asked). */
export function givenRequest(
  request: Extract<Parameters<typeof decideMoneyOut>[0], { type: 'Request' }>,
  ...commands: Parameters<typeof decideMoneyOut>[0][]
): MoneyOut {
  let state: MoneyOutState = null;
  for (const command of [request, ...commands]) state = decideMoneyOut(command, state).reduce(evolveMoneyOut, state);
  return state!;
}

/** What the provider answers each call, in order; an Error is no answer (a time-out). */
export type Script = { Send?: (MoneyOutInput | Error)[]; Status?: (MoneyOutInput | Error)[] };

/**
 * Runs the process from `input` on `moneyOut` at `now`, the provider answering from `script`: what it sent and
 * asked, the settlements it made, how the run ended and the money-out after it.
 */
export async function when(moneyOut: MoneyOut, input: MoneyOutInput, script: Script = {}, now = T0) {
  const calls: MoneyOutCall['type'][] = [];
  const settlements: Exclude<
    MoneyOutEffect,
    { type: `Record${string}` | 'Request' | 'Flag' | 'Approve' | 'Cancel' }
  >[] = [];
  const process = moneyOutProcess({
    statusPollMs: POLL_MS,
    attentionAfterMs: ATTENTION_MS,
    approvalTimeoutMs: APPROVAL_MS,
    reversalWatchMs: REVERSAL_WATCH_MS,
  });
  const { state, end } = await runProcess<MoneyOutInput, MoneyOutRunState, MoneyOutEffect, MoneyOutCall>(
    process,
    input,
    { moneyOut, now },
    {
      async execute(command, state) {
        if (
          command.type === 'SettleWallet' ||
          command.type === 'SettleAllocation' ||
          command.type === 'UncountPayout' ||
          command.type === 'CreditReversal'
        ) {
          settlements.push(command);
          return { state, input: { type: 'Recorded' } };
        }
        const after = decideMoneyOut(command, state.moneyOut).reduce(evolveMoneyOut, state.moneyOut as MoneyOutState);
        return { state: { ...state, moneyOut: after! }, input: { type: 'Recorded' } };
      },
      async call(call) {
        calls.push(call.type);
        const answer = script[call.type]?.shift();
        if (answer === undefined) throw new Error(`the script has no answer for ${call.type}`);
        if (answer instanceof Error)
          return call.type === 'Send'
            ? { type: 'SendUnanswered', detail: answer.message }
            : { type: 'StatusUnanswered', detail: answer.message };
        return answer;
      },
      rejection: (output) => new Error(output.message),
    },
  );
  return { calls, settlements, end, moneyOut: state.moneyOut };
}

export const status = (answer: Extract<MoneyOutInput, { type: 'StatusAnswered' }>['answer']): MoneyOutInput => ({
  type: 'StatusAnswered',
  answer,
});
export const timeOut = () => new Error('no answer within 10000 ms');
