import type { CollectionRequest } from '@paygate/contracts';
import { MOMO_REQUEST } from '@paygate/testing';
import { newInternalReference, newMerchantReference, requestHash } from './references';

describe('newInternalReference', () => {
  const references = Array.from({ length: 1000 }, () => newInternalReference());

  it('is PG + 24 Crockford base32 characters (no I, L, O, U)', () => {
    for (const reference of references) expect(reference).toMatch(/^PG[0-9A-HJKMNP-TV-Z]{24}$/);
  });

  it('gives 1,000 distinct references', () => {
    expect(new Set(references).size).toBe(1000);
  });

  it('uses the whole base32 alphabet', () => {
    // 24,000 draws from 32 symbols: a symbol never drawn would mean a smaller alphabet.
    const seen = new Set(references.flatMap((reference) => [...reference.slice(2)]));
    expect([...seen].sort().join('')).toBe('0123456789ABCDEFGHJKMNPQRSTVWXYZ');
  });
});

describe('newMerchantReference', () => {
  it('is MCTREF + 14 uppercase alphanumerics', () => {
    const references = Array.from({ length: 1000 }, () => newMerchantReference());
    for (const reference of references) expect(reference).toMatch(/^MCTREF[A-Z0-9]{14}$/);
    expect(new Set(references).size).toBe(1000);
  });
});

describe('requestHash', () => {
  const request: CollectionRequest = {
    merchant_reference: 'order-1',
    ...MOMO_REQUEST,
    customer_email: 'jane@example.com',
    description: 'School fees',
    charge_customer: false,
    require_confirmation: true,
    redirect_url: 'https://merchant.example/return',
  };

  it('is a lowercase hex SHA-256', () => {
    expect(requestHash(request)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is equal for the same fields in another key order', () => {
    const reversed = Object.fromEntries(Object.entries(request).reverse()) as unknown as CollectionRequest;
    expect(Object.keys(reversed)).not.toEqual(Object.keys(request));
    expect(requestHash(reversed)).toBe(requestHash(request));
    const shuffled = Object.fromEntries(
      Object.entries(request)
        .map((entry, index) => [entry, (index * 7) % 12] as const)
        .sort((a, b) => a[1] - b[1])
        .map(([entry]) => entry),
    ) as unknown as CollectionRequest;
    expect(requestHash(shuffled)).toBe(requestHash(request));
  });

  const changes: Array<[keyof CollectionRequest, unknown]> = [
    ['merchant_reference', 'order-2'],
    ['transaction_method', 'CARD'],
    ['provider_code', 'airtel_money_ug'],
    ['currency', 'KES'],
    ['amount', 81001],
    ['msisdn', '256772000002'],
    ['customer_name', 'Jane  Doe'],
    ['customer_email', 'jane@example.org'],
    ['description', 'School fee'],
    ['charge_customer', true],
    ['require_confirmation', false],
    ['redirect_url', 'https://merchant.example/return?x=1'],
  ];

  it('covers every field of the request in this table', () => {
    expect(changes.map(([field]) => field).sort()).toEqual(Object.keys(request).sort());
  });

  it.each(changes)('differs when %s differs', (field, value) => {
    expect(requestHash({ ...request, [field]: value })).not.toBe(requestHash(request));
  });

  it.each(changes)('differs when %s is left out', (field) => {
    const without: Record<string, unknown> = { ...request };
    delete without[field];
    expect(requestHash(without as unknown as CollectionRequest)).not.toBe(requestHash(request));
  });

  it('tells a number from the same digits as a string', () => {
    expect(requestHash({ ...request, amount: '81000' as unknown as number })).not.toBe(requestHash(request));
  });

  it('ignores undefined fields', () => {
    const without = (...fields: Array<keyof CollectionRequest>) => {
      const copy: Record<string, unknown> = { ...request };
      for (const field of fields) delete copy[field];
      return copy as unknown as CollectionRequest;
    };
    expect(
      requestHash({
        ...without('customer_email', 'description', 'redirect_url'),
        customer_email: undefined,
        description: undefined,
        redirect_url: undefined,
      }),
    ).toBe(requestHash(without('customer_email', 'description', 'redirect_url')));
    expect(requestHash({ ...request, msisdn: undefined })).toBe(requestHash(without('msisdn')));
    expect(requestHash({ ...request, msisdn: undefined })).not.toBe(requestHash(request));
  });
});
