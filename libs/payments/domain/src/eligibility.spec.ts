/** checkPrnEligibility: the pure verdict on a PRN, and the texts merchants read about it. */
import type { PrnDetails } from '@paygate/contracts';
import { checkPrnEligibility, type PrnVerdict } from './eligibility';
import { prnNotEligibleMessage } from './messages';
import { prnDetails } from './payments-test-setup';

const NOW = '2025-03-01T10:00:00.000Z';
const REQUEST = { currency: 'UGX', amount: 81000 };
const refused = (reasonCode: string, reason: string): PrnVerdict =>
  ({ eligible: false, reasonCode, reason }) as PrnVerdict;

describe('checkPrnEligibility', () => {
  const table: Array<[string, PrnDetails | null, { currency: string; amount: number }, PrnVerdict]> = [
    ['an available PRN due exactly the request', prnDetails(), REQUEST, { eligible: true }],
    ['an available PRN without an expiry', prnDetails({ expiresAt: undefined }), REQUEST, { eligible: true }],
    ['a PRN the biller does not know', null, REQUEST, refused('PRN_NOT_FOUND', 'unknown PRN')],
    ['a PAID PRN', prnDetails({ status: 'PAID' }), REQUEST, refused('PRN_ALREADY_PAID', 'already paid')],
    [
      'a SUBMITTED PRN',
      prnDetails({ status: 'SUBMITTED' }),
      REQUEST,
      refused('PRN_SUBMITTED', 'a payment is already submitted'),
    ],
    ['an EXPIRED PRN', prnDetails({ status: 'EXPIRED' }), REQUEST, refused('PRN_EXPIRED', 'expired')],
    [
      'an AVAILABLE PRN past its expiry',
      prnDetails({ expiresAt: '2025-03-01T09:59:59.000Z' }),
      REQUEST,
      refused('PRN_EXPIRED', 'expired at 2025-03-01T09:59:59.000Z'),
    ],
    [
      'an AVAILABLE PRN expiring this very instant',
      prnDetails({ expiresAt: NOW }),
      REQUEST,
      refused('PRN_EXPIRED', `expired at ${NOW}`),
    ],
    // Instants, not strings: 12:30+03:00 is 09:30Z, before now although it sorts after it.
    [
      'an expiry written with an offset, already past',
      prnDetails({ expiresAt: '2025-03-01T12:30:00+03:00' }),
      REQUEST,
      refused('PRN_EXPIRED', 'expired at 2025-03-01T12:30:00+03:00'),
    ],
    [
      'an expiry written with an offset, still ahead',
      prnDetails({ expiresAt: '2025-03-01T08:30:00-03:00' }),
      REQUEST,
      { eligible: true },
    ],
    [
      'another currency',
      prnDetails({ currency: 'USD', amount: 2200 }),
      REQUEST,
      refused('CURRENCY_MISMATCH', "currency UGX differs from the PRN's USD"),
    ],
    [
      'a smaller amount due',
      prnDetails({ amount: 80000 }),
      REQUEST,
      refused('AMOUNT_MISMATCH', "amount UGX 81,000 differs from the PRN's UGX 80,000"),
    ],
    [
      'a larger amount due',
      prnDetails({ amount: 81001 }),
      REQUEST,
      refused('AMOUNT_MISMATCH', "amount UGX 81,000 differs from the PRN's UGX 81,001"),
    ],
    [
      'minor units in a two-decimal currency',
      prnDetails({ currency: 'USD', amount: 2250 }),
      { currency: 'USD', amount: 2200 },
      refused('AMOUNT_MISMATCH', "amount USD 22.00 differs from the PRN's USD 22.50"),
    ],
    // The most fundamental reason wins.
    [
      'a PAID PRN of another amount',
      prnDetails({ status: 'PAID', amount: 1 }),
      REQUEST,
      refused('PRN_ALREADY_PAID', 'already paid'),
    ],
    [
      'an expired PRN in another currency',
      prnDetails({ expiresAt: '2025-02-01T00:00:00.000Z', currency: 'USD' }),
      REQUEST,
      refused('PRN_EXPIRED', 'expired at 2025-02-01T00:00:00.000Z'),
    ],
    [
      'another currency and amount',
      prnDetails({ currency: 'KES', amount: 5 }),
      REQUEST,
      refused('CURRENCY_MISMATCH', "currency UGX differs from the PRN's KES"),
    ],
  ];

  it.each(table)('%s', (_name, details, request, verdict) => {
    expect(checkPrnEligibility(details, request, NOW)).toEqual(verdict);
  });

  it('every refusal reads as "PRN not eligible: <reason>"', () => {
    expect(prnNotEligibleMessage('already paid')).toBe('PRN not eligible: already paid');
  });
});
