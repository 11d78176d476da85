import { COLLECTIONS_SERVICE, InitializeCollection } from './collections';
import { TopUpWallet } from './payments';
import { addressOf, ContractCommand, serviceContract } from './service-contract';

describe('service contracts', () => {
  it('addresses a message by the service and wire name its contract lists it under', () => {
    const initialize = new InitializeCollection({ merchantId: 'm-1', request: {} as never });
    expect(addressOf(initialize)).toEqual({ service: 'collections', message: 'collections.initialize' });
    expect(addressOf(new TopUpWallet({ merchantId: 'm-1', currency: 'UGX', amount: 100, reference: 'r-1' }))).toEqual({
      service: 'payments',
      message: 'payments.topUp',
    });
  });

  it('refuses a class listed by a second contract, so a message has one destination', () => {
    expect(() =>
      serviceContract(
        'elsewhere',
        { servedBy: 'collections', sentBy: ['api-gateway'] },
        { initialize: InitializeCollection },
      ),
    ).toThrow(/collections's collections.initialize already/);
    expect(COLLECTIONS_SERVICE.messages['collections.initialize']).toBe(InitializeCollection);
  });

  it('refuses to address a message whose class no contract lists', () => {
    class Unlisted extends ContractCommand<Record<string, never>, null> {}
    expect(() => addressOf(new Unlisted({}))).toThrow(/Unlisted is in no service's contract/);
  });
});
