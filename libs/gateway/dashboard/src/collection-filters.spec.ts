import { nextPageQuery, readCollectionsQuery } from './collection-filters';

const PROVIDERS = ['card_ug', 'mtn_momo_ug'];

describe('the collections page query', () => {
  it('turns the filters into a list query: dates are UTC days, the To day included', () => {
    const { list, errors, search } = readCollectionsQuery(
      { status: 'FAILED', method: 'CARD', provider: 'card_ug', from: '2026-11-01', to: '2026-11-30' },
      PROVIDERS,
    );
    expect(errors).toEqual([]);
    expect(search).toBeUndefined();
    expect(list).toEqual({
      status: 'FAILED',
      method: 'CARD',
      providerCode: 'card_ug',
      createdFrom: '2026-11-01T00:00:00.000Z',
      createdTo: '2026-12-01T00:00:00.000Z',
    });
  });

  it('searches an internal reference as one, and anything else reference-shaped as a merchant reference', () => {
    expect(readCollectionsQuery({ q: ' PG7K3M9Q2X4T8V6B1N5R0D2F3H ' }, PROVIDERS).search).toEqual({
      internalReference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
    });
    expect(readCollectionsQuery({ q: 'order-1001' }, PROVIDERS).search).toEqual({ merchantReference: 'order-1001' });
  });

  it('names every bad field, and a repeated parameter is not taken for a value', () => {
    const { errors } = readCollectionsQuery(
      { q: 'a b', status: ['FAILED', 'COMPLETED'], to: '2026-13-01', after: 'x', method: '\u0000' },
      PROVIDERS,
    );
    expect(errors).toEqual([
      expect.stringContaining('Search for a merchant reference'),
      expect.stringContaining('Method must be one of'),
      expect.stringContaining('To must be a date'),
      expect.stringContaining('not one the dashboard gave'),
    ]);
  });

  it('carries the filters, not the search, to the next page, and reads its position back', () => {
    const filters = readCollectionsQuery({ q: 'order-1', status: 'PENDING' }, PROVIDERS).filters;
    const query = nextPageQuery(filters, {
      createdAt: '2026-11-27T10:00:00.000Z',
      internalReference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
    });
    expect(query).toBe('status=PENDING&after=2026-11-27T10%3A00%3A00.000Z%7EPG7K3M9Q2X4T8V6B1N5R0D2F3H');
    expect(readCollectionsQuery(Object.fromEntries(new URLSearchParams(query)), PROVIDERS).list).toEqual({
      status: 'PENDING',
      after: { createdAt: '2026-11-27T10:00:00.000Z', internalReference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H' },
    });
  });
});
