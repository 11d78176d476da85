import { prefixCategory, streamCategory } from './event-bus';

describe('stream categories (one Kafka topic each)', () => {
  it('names a category after its stream prefix, dashes inside the prefix kept', () => {
    expect(prefixCategory('collection-')).toBe('collection');
    expect(prefixCategory('service-payment-')).toBe('service-payment');
  });

  it('puts a stream in the category of the longest prefix it starts with', () => {
    const prefixes = ['service-payment-', 'wallet-', 'service-'];
    expect(streamCategory('service-payment-PG7K3M9Q2X4T8V6B1N5R0D2F3H', prefixes)).toBe('service-payment');
    expect(streamCategory('wallet-3f2a-9c1d-UGX', prefixes)).toBe('wallet');
    expect(streamCategory('service-other-1', prefixes)).toBe('service');
  });

  it('refuses a stream under none of the prefixes rather than inventing a topic', () => {
    expect(() => streamCategory('collection-PG1', ['wallet-'])).toThrow(
      'stream collection-PG1 is not under any of wallet-',
    );
  });
});
