import { collectionCursor, parseListing } from './collection-listing';

describe('the collections listing query', () => {
  const parse = (query: Record<string, unknown>) => parseListing('mer_1', query);

  it('defaults to the newest 20 of the merchant', () => {
    expect(parse({})).toEqual({ value: { merchantId: 'mer_1', limit: 20 }, errors: [] });
  });

  it('reads every filter, instants in the stored form whatever offset they were given in', () => {
    const { value, errors } = parse({
      status: 'FAILED',
      transaction_method: 'CARD',
      provider_code: 'card_ug',
      created_from: '2026-11-26',
      created_to: '2026-11-26T15:30:00+03:00',
      limit: '100',
    });
    expect(errors).toEqual([]);
    expect(value).toEqual({
      merchantId: 'mer_1',
      status: 'FAILED',
      method: 'CARD',
      providerCode: 'card_ug',
      createdFrom: '2026-11-26T00:00:00.000Z',
      createdTo: '2026-11-26T12:30:00.000Z',
      limit: 100,
    });
  });

  it('gives back the position a cursor was made from', () => {
    const position = { createdAt: '2026-11-26T12:00:00.123Z', internalReference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H' };
    expect(parse({ cursor: collectionCursor(position) }).value.after).toEqual(position);
  });

  it.each([
    ['2028-02-29', true],
    ['2026-02-29', false],
    ['2026-04-31', false],
    ['2026-11-26T24:00:00Z', false],
    ['2026-11-26T10:60:00Z', false],
    ['2026-11-26T10:00:00', false],
    ['0000-01-01', false],
    ['26-11-2026', false],
  ])('created_from=%s is accepted: %s', (at, accepted) => {
    expect(parse({ created_from: at }).errors).toHaveLength(accepted ? 0 : 1);
  });

  it('names every refused parameter, an unknown one too', () => {
    const { errors } = parse({ status: ['PENDING', 'FAILED'], limit: '1e2', colour: 'red', cursor: 'eyJ9' });
    expect(errors.map((error) => error.field).sort()).toEqual(['colour', 'cursor', 'limit', 'status']);
  });
});
