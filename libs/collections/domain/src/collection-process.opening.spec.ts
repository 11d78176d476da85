/**
 * The collection process at the start: the Initiate command a planned request becomes, and the
 * rule for a merchant reference used before.
 */
import {
  CommandRejectedError,
  parseProviderCatalogue,
  planCollection,
  type CollectionRequest,
} from '@paygate/contracts';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MOMO_REQUEST } from '@paygate/testing';
import { assertSameRequest, openCollection, type ReservedCollection } from './collection-process';
import { POLICY } from './collection-process-test-setup';

const catalogue = parseProviderCatalogue(
  JSON.parse(readFileSync(resolve(__dirname, '../../../../config/providers.json'), 'utf8')),
);
const AT = '2026-03-01T10:00:00.000Z';
const RESERVED: ReservedCollection = {
  id: 42,
  internalReference: 'PGOPEN0000000000000000001',
  requestHash: 'a'.repeat(64),
  fresh: true,
};

function request(overrides: Partial<CollectionRequest> = {}): CollectionRequest {
  return {
    merchant_reference: 'order-42',
    ...MOMO_REQUEST,
    charge_customer: false,
    require_confirmation: true,
    ...overrides,
  };
}

function opened(req: CollectionRequest, policy = POLICY) {
  const planned = planCollection(req, catalogue);
  if (!planned.ok) throw new Error(planned.errors.map((e) => e.message).join('; '));
  return openCollection(
    {
      merchantId: 'mer_1',
      request: req,
      plan: planned.plan,
      merchantReference: req.merchant_reference,
      reserved: RESERVED,
      at: AT,
    },
    policy,
  );
}

describe('the collection process at the start', () => {
  it('given a planned mobile money request, then Initiate carries the plan’s provider and charges, the reservation and the confirmation deadline', async () => {
    const command = opened(request());
    expect(command).toMatchObject({
      type: 'Initiate',
      data: {
        id: 42,
        merchantId: 'mer_1',
        merchantReference: 'order-42',
        internalReference: RESERVED.internalReference,
        transactionMethod: 'MOBILE_MONEY',
        providerCode: 'mtn_momo_ug',
        currency: 'UGX',
        requestAmount: 81000,
        chargeCustomer: false,
        requireConfirmation: true,
        msisdn: '256772000001',
        requestHash: RESERVED.requestHash,
        initiatedAt: AT,
        confirmationExpiresAt: new Date(Date.parse(AT) + POLICY.confirmationTimeoutMs).toISOString(),
      },
    });
    if (command.type !== 'Initiate') throw new Error('not Initiate');
    expect(command.data.transactionAmount - command.data.fee).toBe(command.data.totalCredit);
  });

  it('given a live deployment, then Initiate records livemode: true; a test deployment’s, false', () => {
    expect(opened(request(), { ...POLICY, livemode: true })).toMatchObject({ data: { livemode: true } });
    expect(opened(request())).toMatchObject({ data: { livemode: false } });
  });

  it('given a card request, then the collection is a card collection and has no msisdn', async () => {
    const command = opened(
      request({
        transaction_method: 'CARD',
        provider_code: 'card_ug',
        msisdn: undefined,
        redirect_url: 'https://shop.example/return',
      }),
    );
    expect(command).toMatchObject({ type: 'Initiate', data: { transactionMethod: 'CARD' } });
    if (command.type !== 'Initiate') throw new Error('not Initiate');
    expect(command.data.msisdn).toBeUndefined();
  });

  it('given no confirmation and no PRN, then there is no deadline; given a PRN, then the verdict has one', async () => {
    const plain = opened(request({ require_confirmation: false }));
    const withPrn = opened(request({ require_confirmation: false, prn: '2250000123456' }));
    if (plain.type !== 'Initiate' || withPrn.type !== 'Initiate') throw new Error('not Initiate');
    expect(plain.data.confirmationExpiresAt).toBeUndefined();
    expect(withPrn.data.confirmationExpiresAt).toBe(
      new Date(Date.parse(AT) + POLICY.confirmationTimeoutMs).toISOString(),
    );
  });

  it('given a merchant reference used before for the same request, then it is that request again; for another request, then it is refused', async () => {
    const before = { ...RESERVED, fresh: false };
    expect(() => assertSameRequest(before, RESERVED.requestHash, 'order-42')).not.toThrow();
    expect(() => assertSameRequest(RESERVED, 'b'.repeat(64), 'order-42')).not.toThrow();
    let refusal: unknown;
    try {
      assertSameRequest(before, 'b'.repeat(64), 'order-42');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(CommandRejectedError);
    expect(refusal).toMatchObject({
      code: 'duplicate_reference',
      message: 'merchant_reference order-42 was already used for a different request',
    });
  });
});
