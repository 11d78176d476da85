import type { LookupAddress } from 'node:dns';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  callbackUrlRefusal,
  connectRefusal,
  guardedLookup,
  isLocalhostName,
  TARGET_NOT_ALLOWED,
  type Resolver,
} from './target-guard';

const SWITCH_OFF = { allowPrivate: false };
const SWITCH_ON = { allowPrivate: true };

describe('isLocalhostName', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['localhost.', true],
    ['api.localhost', true],
    ['a.b.localhost.', true],
    ['localhost.localdomain', true],
    ['ip6-localhost', true],
    ['ip6-loopback', true],
    ['localhost.example.com', false],
    ['mylocalhost', false],
    ['example.com', false],
  ])('%s → %s', (name, localhost) => expect(isLocalhostName(name)).toBe(localhost));
});

describe('callbackUrlRefusal (configuration)', () => {
  const HTTPS_ONLY = 'must be an https URL';
  const LOOPBACK = 'must not point at loopback (127.0.0.0/8)';
  it.each<[string, string | undefined]>([
    // [URL, refusal with the switch off and with it on]
    ['https://shop.example.com/paygate/cb', undefined],
    ['https://shop.example.com:8443/cb?token=x', undefined],
    ['https://8.8.8.8/cb', undefined],
    ['https://[2606:4700:4700::1111]/cb', undefined],
    ['https://localhost.example.com/cb', undefined],
    // names are judged when they resolve, at connect time
    ['https://127.0.0.1.nip.io/cb', undefined],
    ['/cb', 'must be an absolute URL'],
    ['not a url', 'must be an absolute URL'],
    ['https://1.2.3.4.5/', 'must be an absolute URL'],
    ['https://[::127.0.0.1]/cb', 'must not point at IPv4-compatible (deprecated) (::/96)'],
    // never reachable: special-purpose ranges other than loopback and private-use
    ['https://169.254.169.254/latest/meta-data/', 'must not point at link-local (169.254.0.0/16)'],
    ['https://0/cb', 'must not point at "this network" (0.0.0.0/8)'],
    ['https://198.18.0.1/cb', 'must not point at benchmarking (198.18.0.0/15)'],
    ['https://224.0.0.1/cb', 'must not point at multicast (224.0.0.0/4)'],
    ['https://255.255.255.255/cb', 'must not point at limited broadcast (255.255.255.255/32)'],
    ['https://192.0.2.1/cb', 'must not point at documentation (192.0.2.0/24)'],
    ['https://[2001:db8::1]/cb', 'must not point at documentation (2001:db8::/32)'],
    ['https://[ff02::1]/cb', 'must not point at multicast (ff00::/8)'],
    ['https://[fe80::1]/cb', 'must not point at link-local (fe80::/10)'],
    ['https://[2001::1]/cb', 'must not point at Teredo (2001::/32)'],
    ['https://[64:ff9b::a9fe:a9fe]/cb', 'must not point at NAT64 (64:ff9b::/96) of link-local (169.254.0.0/16)'],
    ['https://[2002:c612:1::]/cb', 'must not point at 6to4 (2002::/16) of benchmarking (198.18.0.0/15)'],
  ])('%s → %s, whether private callbacks are allowed or not', (url, refusal) => {
    expect(callbackUrlRefusal(url, SWITCH_OFF)).toBe(refusal);
    expect(callbackUrlRefusal(url, SWITCH_ON)).toBe(refusal);
  });

  it.each<[string, string, string | undefined]>([
    // [URL, refusal with the switch off, with it on]
    ['http://shop.example.com/cb', HTTPS_ONLY, undefined],
    ['ftp://shop.example.com/cb', HTTPS_ONLY, 'must be an http or https URL'],
    ['javascript:alert(1)', HTTPS_ONLY, 'must be an http or https URL'],
    ['file:///etc/passwd', HTTPS_ONLY, 'must be an http or https URL'],
    // loopback in every notation
    ['https://127.0.0.1/cb', LOOPBACK, undefined],
    ['https://2130706433/cb', LOOPBACK, undefined],
    ['https://0177.0.0.1/cb', LOOPBACK, undefined],
    ['https://0x7f.1/cb', LOOPBACK, undefined],
    ['https://127.1/cb', LOOPBACK, undefined],
    ['https://%31%32%37.0.0.1/cb', LOOPBACK, undefined],
    ['https://user:pass@127.0.0.1/cb', LOOPBACK, undefined],
    ['https://[::1]/cb', 'must not point at loopback (::1/128)', undefined],
    [
      'https://[::ffff:127.0.0.1]/cb',
      'must not point at IPv4-mapped (::ffff:0:0/96) of loopback (127.0.0.0/8)',
      undefined,
    ],
    ['https://localhost/cb', 'must not point at loopback (localhost)', undefined],
    ['https://LOCALHOST./cb', 'must not point at loopback (localhost.)', undefined],
    ['https://api.localhost/cb', 'must not point at loopback (api.localhost)', undefined],
    // private: only for local use
    ['https://10.0.0.1/cb', 'must not point at private-use (10.0.0.0/8)', undefined],
    ['http://192.168.1.20:8080/cb', HTTPS_ONLY, undefined],
    ['https://[fd00::1]/cb', 'must not point at unique local (fc00::/7)', undefined],
    ['https://[64:ff9b::a00:1]/cb', 'must not point at NAT64 (64:ff9b::/96) of private-use (10.0.0.0/8)', undefined],
    // link-local stays refused with the switch on, whatever the scheme
    ['http://169.254.169.254/latest/meta-data/', HTTPS_ONLY, 'must not point at link-local (169.254.0.0/16)'],
  ])('%s → %s; with private callbacks allowed → %s', (url, off, on) => {
    expect(callbackUrlRefusal(url, SWITCH_OFF)).toBe(off);
    expect(callbackUrlRefusal(url, SWITCH_ON)).toBe(on);
  });
});

describe('connectRefusal (before a request)', () => {
  it.each<[string, string | undefined, string | undefined]>([
    ['https://shop.example.com/cb', undefined, undefined],
    // a stored http URL still goes out; the https rule is for new configuration
    ['http://shop.example.com/cb', undefined, undefined],
    ['http://0x7f.1:8080/cb', 'loopback (127.0.0.0/8)', undefined],
    ['http://localhost:8080/cb', 'loopback (localhost)', undefined],
    ['http://[::127.0.0.1]/cb', 'IPv4-compatible (deprecated) (::/96)', 'IPv4-compatible (deprecated) (::/96)'],
    ['ftp://shop.example.com/cb', 'only http: and https: URLs', 'only http: and https: URLs'],
  ])('%s → %s; with private targets allowed → %s', (url, off, on) => {
    expect(connectRefusal(new URL(url), SWITCH_OFF)).toBe(off);
    expect(connectRefusal(new URL(url), SWITCH_ON)).toBe(on);
  });
});

/** A resolver answering `answers` for every name: the part of DNS a rebinding attacker controls. */
const resolvingTo =
  (...answers: LookupAddress[]): Resolver =>
  (_hostname, _options, callback) =>
    callback(null, answers);

const lookupOf = (resolver: Resolver, policy: { allowPrivate: boolean }) =>
  new Promise<{ error: Error | null; addresses: unknown }>((resolve) =>
    guardedLookup(policy, resolver)('rebind.example', { all: true }, (error, addresses) =>
      resolve({ error, addresses }),
    ),
  );

describe('guardedLookup (at connect time)', () => {
  const PUBLIC = { address: '203.0.114.1', family: 4 };

  it('passes public answers through and refuses a name with any refused answer', async () => {
    expect(await lookupOf(resolvingTo(PUBLIC), SWITCH_OFF)).toEqual({ error: null, addresses: [PUBLIC] });
    for (const refused of ['127.0.0.1', '10.1.2.3', '::ffff:a9fe:a9fe', 'fe80::1%eth0']) {
      const answers = [PUBLIC, { address: refused, family: refused.includes(':') ? 6 : 4 }];
      expect((await lookupOf(resolvingTo(...answers), SWITCH_OFF)).error?.message).toBe(TARGET_NOT_ALLOWED);
    }
    expect((await lookupOf(resolvingTo({ address: '169.254.169.254', family: 4 }), SWITCH_ON)).error?.message).toBe(
      TARGET_NOT_ALLOWED,
    );
    expect((await lookupOf(resolvingTo(), SWITCH_ON)).error?.message).toBe(TARGET_NOT_ALLOWED);
  });

  it('passes resolver errors on', async () => {
    const failing: Resolver = (_hostname, _options, callback) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    expect((await lookupOf(failing, SWITCH_OFF)).error?.message).toBe('getaddrinfo ENOTFOUND');
  });

  describe('on a real request to a loopback listener of this test, by a name that resolves to it', () => {
    let connections = 0;
    const server = createServer((_request, response) => response.end('reached'));
    server.on('connection', () => connections++);
    let port: number;
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));
    beforeEach(() => (connections = 0));

    const get = (policy: { allowPrivate: boolean }) =>
      new Promise<string>((resolve) => {
        const lookup = guardedLookup(policy, resolvingTo({ address: '127.0.0.1', family: 4 }));
        const outgoing = request(`http://rebound.example:${port}/`, { agent: false, lookup }, (response) => {
          response.setEncoding('utf8');
          let body = '';
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve(body));
        });
        outgoing.on('error', (error) => resolve(error.message));
        outgoing.end();
      });

    it('never connects with private targets refused', async () => {
      expect(await get(SWITCH_OFF)).toBe(TARGET_NOT_ALLOWED);
      expect(connections).toBe(0);
    });

    it('connects with private targets allowed', async () => {
      expect(await get(SWITCH_ON)).toBe('reached');
      expect(connections).toBe(1);
    });
  });
});
