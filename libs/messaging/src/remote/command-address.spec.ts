import { CommandAddressError, grpcTarget, listenAddress, parseCommandAddress } from './command-address';

describe('command addresses', () => {
  it('names its transport and its instances', () => {
    expect(parseCommandAddress('tcp://collections-commands:7000')).toEqual({ transport: 'tcp', hosts: [{ host: 'collections-commands', port: 7000 }] });
    expect(parseCommandAddress('grpc://127.0.0.1:5001,127.0.0.1:5002').hosts).toHaveLength(2);
  });

  it('gives gRPC one DNS name to resolve (round-robin over its addresses) or the list of IP addresses as it is', () => {
    expect(grpcTarget(parseCommandAddress('grpc://collections-commands:50051'))).toBe('dns:///collections-commands:50051');
    expect(grpcTarget(parseCommandAddress('grpc://127.0.0.1:5001,127.0.0.1:5002'))).toBe('ipv4:127.0.0.1:5001,127.0.0.1:5002');
    expect(grpcTarget(parseCommandAddress('grpc://[::1]:5001'))).toBe('ipv6:[::1]:5001');
  });

  it('refuses what it cannot route, naming the address', () => {
    for (const url of ['http://collections:50051', 'grpc://', 'tcp://collections', 'grpc://a:1,b:2', 'tcp://127.0.0.1:1,[::1]:2', 'grpc://h:70000'])
      expect(() => parseCommandAddress(url)).toThrow(CommandAddressError);
  });

  it('listens on exactly one address', () => {
    expect(listenAddress('tcp://0.0.0.0:7000')).toMatchObject({ transport: 'tcp', host: '0.0.0.0', port: 7000 });
    expect(() => listenAddress('grpc://127.0.0.1:1,127.0.0.1:2')).toThrow(CommandAddressError);
  });
});
