import { CommandRejectedError } from '@paygate/contracts';
import { formatMoney, isSupportedCurrency } from '@paygate/money';
import { PAYOUT_DAY_EVENT_TYPES as EVENTS, type PayoutDayEvent } from './events';

/**
 * A merchant's payouts of one currency and UTC day, together: each is counted before its money is held, so payouts
 * in flight count and concurrent ones (one stream, appended with its expected revision) never pass the merchant's
 * daily cap. A payout not made (FAILED, CANCELLED, or refused by the wallet) no longer counts. Every payout is
 * counted, capped or not, so a cap set during the day sees the day's payouts.
 */
export interface PayoutDay {
  /** What the counted payouts total, integer minor units. */
  total: number;
  /** payout_reference → its amount and whether it still counts. */
  payouts: Readonly<Record<string, { amount: number; counts: boolean }>>;
}

export type PayoutDayState = PayoutDay | null;

export type PayoutDayCommand =
  | {
      type: 'Count';
      merchantId: string;
      currency: string;
      day: string;
      payoutReference: string;
      amount: number;
      /** The merchant's daily cap in minor units; null: none. */
      cap: number | null;
      at: string;
    }
  | { type: 'Uncount'; payoutReference: string; at: string };

const money = (minor: number, currency: string) =>
  isSupportedCurrency(currency) ? formatMoney(minor, currency) : `${minor} minor units of ${currency}`;

export function decidePayoutDay(command: PayoutDayCommand, state: PayoutDayState): PayoutDayEvent[] {
  if (command.type === 'Uncount') {
    const payout = state?.payouts[command.payoutReference];
    return payout?.counts
      ? [{ type: EVENTS.uncounted, data: { payoutReference: command.payoutReference, uncountedAt: command.at } }]
      : [];
  }
  const { merchantId, currency, day, payoutReference, amount, cap, at } = command;
  // Counted once: a repeat (a request retried after a crash) is the same payout. One uncounted because its hold was
  // refused may be asked again (its stream was never started), and counts again.
  if (state?.payouts[payoutReference]?.counts) return [];
  const total = state?.total ?? 0;
  if (cap !== null && total + amount > cap) {
    const message = `this payout would take today's payouts to ${money(total + amount, currency)}, over the daily cap of ${money(cap, currency)}`;
    throw new CommandRejectedError('invalid_request', message, { errors: [{ field: 'amount', message }] });
  }
  return [{ type: EVENTS.counted, data: { merchantId, currency, day, payoutReference, amount, countedAt: at } }];
}

export function evolvePayoutDay(state: PayoutDayState, event: PayoutDayEvent): PayoutDayState {
  const current = state ?? { total: 0, payouts: {} };
  switch (event.type) {
    case EVENTS.counted: {
      const { payoutReference, amount } = event.data;
      return {
        total: current.total + amount,
        payouts: { ...current.payouts, [payoutReference]: { amount, counts: true } },
      };
    }
    case EVENTS.uncounted: {
      const payout = current.payouts[event.data.payoutReference];
      if (!payout?.counts) return current;
      return {
        total: current.total - payout.amount,
        payouts: { ...current.payouts, [event.data.payoutReference]: { amount: payout.amount, counts: false } },
      };
    }
  }
}
