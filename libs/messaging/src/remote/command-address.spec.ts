import { CommandAddressError, listenAddress, parseCommandAddress } from './command-address';

describe('command addresses', () => {
  it('names its instances: one DNS name, or a list of IP addresses', () => {
    expect(parseCommandAddress('tcp://collections-commands:7000')).toEqual({
      hosts: [{ host: 'collections-commands', port: 7000 }],
    });
    expect(parseCommandAddress('tcp://127.0.0.1:5001,127.0.0.1:5002').hosts).toHaveLength(2);
    expect(parseCommandAddress('tcp://[::1]:5001').hosts).toEqual([{ host: '::1', port: 5001 }]);
  });

  it('refuses what it cannot route, naming the address', () => {
    for (const url of [
      'http://collections:7000',
      'grpc://collections:50051',
      'tcp://',
      'tcp://collections',
      'tcp://a:1,b:2',
      'tcp://127.0.0.1:1,[::1]:2',
      'tcp://h:70000',
    ])
      expect(() => parseCommandAddress(url)).toThrow(CommandAddressError);
  });

  it('listens on exactly one address', () => {
    expect(listenAddress('tcp://0.0.0.0:7000')).toEqual({ host: '0.0.0.0', port: 7000 });
    expect(() => listenAddress('tcp://127.0.0.1:1,127.0.0.1:2')).toThrow(CommandAddressError);
  });
});
