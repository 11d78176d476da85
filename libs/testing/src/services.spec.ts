import { serviceGate } from './services';

describe('a suite gated on a server', () => {
  it('runs against the server when it is configured', () => {
    expect(serviceGate('postgres', 'postgres://root@127.0.0.1:5432/test', true)).toEqual({
      run: 'postgres://root@127.0.0.1:5432/test',
    });
  });

  it('fails, naming the variable to set, when REQUIRE_SERVICES=1 and the server is missing', () => {
    expect(serviceGate('kafka', undefined, true)).toEqual({
      fail: expect.stringContaining('BROKER_URL=kafka://host:port'),
    });
  });

  it("is skipped, naming the variable to set, when the server is missing and not required (README's npm test)", () => {
    expect(serviceGate('postgres', undefined, false)).toEqual({
      skip: expect.stringContaining('STORE_URL=postgres://'),
    });
  });

  it('is skipped when KurrentDB is missing, even under REQUIRE_SERVICES=1 (this machine cannot run it)', () => {
    expect(serviceGate('kurrentdb', undefined, true)).toEqual({ skip: expect.stringContaining('KURRENTDB_URL') });
  });
});
