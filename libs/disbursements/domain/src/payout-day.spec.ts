import { CommandRejectedError } from '@paygate/contracts';
import { eventSchemaErrors } from '@paygate/testing';
import { PAYOUT_DAY_EVENT_SCHEMAS } from './events';
import { decidePayoutDay, evolvePayoutDay, type PayoutDayCommand, type PayoutDayState } from './payout-day';

const AT = '2026-11-28T10:00:00.000Z';
const count = (payoutReference: string, amount: number, cap: number | null): PayoutDayCommand => ({
  type: 'Count',
  merchantId: 'mer_1',
  currency: 'UGX',
  day: '2026-11-28',
  payoutReference,
  amount,
  cap,
  at: AT,
});

/** Given the commands so far decided on a payout day, the day after them. */
function given(...commands: PayoutDayCommand[]): PayoutDayState {
  let state: PayoutDayState = null;
  for (const command of commands) {
    const events = decidePayoutDay(command, state);
    for (const event of events) expect(eventSchemaErrors(PAYOUT_DAY_EVENT_SCHEMAS, event)).toEqual([]);
    state = events.reduce(evolvePayoutDay, state);
  }
  return state;
}

const refusalOf = (command: PayoutDayCommand, state: PayoutDayState) => {
  try {
    decidePayoutDay(command, state);
  } catch (error) {
    return error as CommandRejectedError;
  }
  throw new Error('expected a refusal');
};

describe("a merchant's payouts of a day against its daily cap", () => {
  it('counts each payout, in flight or made, up to the cap', () => {
    const day = given(count('po-1', 20_000, 25_000), count('po-2', 5_000, 25_000));
    expect(day?.total).toBe(25_000);
  });

  it('one that would pass the cap is refused naming amount, with what the day would reach', () => {
    const refusal = refusalOf(count('po-2', 5_001, 25_000), given(count('po-1', 20_000, 25_000)));
    expect(refusal.code).toBe('invalid_request');
    expect(refusal.details).toEqual({
      errors: [{ field: 'amount', message: expect.stringContaining('UGX 25,001, over the daily cap of UGX 25,000') }],
    });
  });

  it('without a cap every payout is counted, so a cap set later in the day sees them', () => {
    const day = given(count('po-1', 20_000, null), count('po-2', 30_000, null));
    expect(day?.total).toBe(50_000);
    expect(refusalOf(count('po-3', 1, 50_000), day).code).toBe('invalid_request');
  });

  it('a payout not made no longer counts, once; the same payout is counted once', () => {
    const day = given(
      count('po-1', 20_000, 25_000),
      { type: 'Uncount', payoutReference: 'po-1', at: AT },
      count('po-2', 25_000, 25_000),
    );
    expect(day?.total).toBe(25_000);
    expect(decidePayoutDay({ type: 'Uncount', payoutReference: 'po-1', at: AT }, day)).toEqual([]);
    expect(decidePayoutDay(count('po-2', 25_000, 25_000), day)).toEqual([]);
    expect(decidePayoutDay({ type: 'Uncount', payoutReference: 'po-unknown', at: AT }, day)).toEqual([]);
  });

  it('one uncounted because the wallet refused its hold, asked again, counts again', () => {
    const day = given(count('po-1', 10_000, null), { type: 'Uncount', payoutReference: 'po-1', at: AT });
    expect(
      given(
        count('po-1', 10_000, null),
        { type: 'Uncount', payoutReference: 'po-1', at: AT },
        count('po-1', 10_000, null),
      )?.total,
    ).toBe(10_000);
    expect(day?.total).toBe(0);
  });
});
