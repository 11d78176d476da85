import { DISBURSEMENTS_INTEGRATION_EVENTS as PUBLISHED, type PublishedPayoutV1 } from '@paygate/contracts';
import { publishedPayout } from '@paygate/testing';
import { callbackBody } from './collection-callbacks';
import { payoutCallbackFor, payoutCallbackOrder, type PayoutSettledEvent } from './payout-callbacks';

const settled = (overrides: Partial<PublishedPayoutV1> = {}, revision = 4): PayoutSettledEvent => ({
  id: 'p1',
  type: PUBLISHED.payoutSettled,
  version: 1,
  streamName: 'payout-mer_1:payout-1001',
  revision,
  data: { payout: publishedPayout(overrides), settledAt: '2026-01-01T00:00:07.000Z' },
});

describe('payout callbacks', () => {
  it('sends payout.completed with the payout record as the API shows it, amount and fee in major units', () => {
    expect(payoutCallbackFor(settled())).toEqual({
      event: 'payout.completed',
      payload: {
        payout_reference: 'payout-1001',
        amount: 150000,
        fee: 1500,
        currency: 'UGX',
        provider_code: 'mtn_momo_ug',
        msisdn: '256772000001',
        recipient_name: 'Jane Doe',
        status: 'COMPLETED',
        failure_reason: null,
        livemode: false,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:07.000Z',
      },
    });
  });

  it('sends payout.failed with what the provider said when the payout failed', () => {
    const message = payoutCallbackFor(settled({ status: 'FAILED', failureReason: 'PAYEE_NOT_FOUND' }));
    expect(message.event).toBe('payout.failed');
    expect(message.payload).toMatchObject({ status: 'FAILED', failure_reason: 'PAYEE_NOT_FOUND' });
  });

  it('sends payout.reversed when the provider took back a completed payout', () => {
    const message = payoutCallbackFor(settled({ status: 'REVERSED', failureReason: 'reversed by the provider' }, 7));
    expect(message.event).toBe('payout.reversed');
    expect(message.payload).toMatchObject({ status: 'REVERSED', failure_reason: 'reversed by the provider' });
  });

  it('sends a payout never approved as payout.failed, its status CANCELLED and the reason given', () => {
    const message = payoutCallbackFor(
      settled({ status: 'CANCELLED', failureReason: 'not approved within 24 h', recipientName: null }),
    );
    expect(message.event).toBe('payout.failed');
    expect(message.payload).toMatchObject({
      status: 'CANCELLED',
      failure_reason: 'not approved within 24 h',
      recipient_name: null,
    });
  });

  it('writes amounts of a currency with cents in major units', () => {
    expect(payoutCallbackFor(settled({ currency: 'USD', amount: 1_050, fee: 25 })).payload).toMatchObject({
      amount: 10.5,
      fee: 0.25,
      currency: 'USD',
    });
  });

  it('orders a payout’s callbacks by its stream, so a reversal follows the completion it takes back', () => {
    expect(payoutCallbackOrder(settled({}, 4))).toEqual({ sequence: 4, awaits: [] });
    expect(payoutCallbackOrder(settled({ status: 'REVERSED' }, 7)).sequence).toBeGreaterThan(
      payoutCallbackOrder(settled({}, 4)).sequence,
    );
  });

  it('is sent as {event, payload} and nothing else', () => {
    const body = callbackBody(payoutCallbackFor(settled()));
    expect(body.startsWith('{"event":"payout.completed","payload":{"payout_reference":"payout-1001",')).toBe(true);
    expect(Object.keys(JSON.parse(body) as object)).toEqual(['event', 'payload']);
  });
});
