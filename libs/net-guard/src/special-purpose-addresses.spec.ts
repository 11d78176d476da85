import { addressRefusal, canonicalAddress } from './special-purpose-addresses';

const SWITCH_OFF = { allowPrivate: false };
const SWITCH_ON = { allowPrivate: true };

const LOOPBACK_V4 = 'loopback (127.0.0.0/8)';
const PRIVATE_10 = 'private-use (10.0.0.0/8)';
const LINK_LOCAL_V4 = 'link-local (169.254.0.0/16)';

/**
 * [address, the range that refuses it (undefined: public, always reachable), reachable with
 * ALLOW_PRIVATE_CALLBACKS=true]. Rows are no-traffic: the function only reads the table.
 */
const TABLE: Array<[string, string | undefined, boolean]> = [
  // public IPv4, including the neighbours of every refused range
  ['8.8.8.8', undefined, true],
  ['1.1.1.1', undefined, true],
  ['1.0.0.0', undefined, true],
  ['9.255.255.255', undefined, true],
  ['11.0.0.0', undefined, true],
  ['100.63.255.255', undefined, true],
  ['100.128.0.0', undefined, true],
  ['126.255.255.255', undefined, true],
  ['128.0.0.0', undefined, true],
  ['169.253.255.255', undefined, true],
  ['169.255.0.0', undefined, true],
  ['172.15.255.255', undefined, true],
  ['172.32.0.0', undefined, true],
  ['192.0.1.255', undefined, true],
  ['192.0.3.0', undefined, true],
  ['192.31.196.1', undefined, true], // AS112: globally reachable
  ['192.52.193.1', undefined, true], // AMT: globally reachable
  ['192.167.255.255', undefined, true],
  ['192.169.0.0', undefined, true],
  ['198.17.255.255', undefined, true],
  ['198.20.0.0', undefined, true],
  ['203.0.112.255', undefined, true],
  ['223.255.255.255', undefined, true],
  // refused IPv4 ranges
  ['0.0.0.0', '"this network" (0.0.0.0/8)', false],
  ['0.255.255.255', '"this network" (0.0.0.0/8)', false],
  ['10.0.0.0', PRIVATE_10, true],
  ['10.255.255.255', PRIVATE_10, true],
  ['100.64.0.0', 'shared address space (carrier-grade NAT) (100.64.0.0/10)', true],
  ['100.127.255.255', 'shared address space (carrier-grade NAT) (100.64.0.0/10)', true],
  ['127.0.0.1', LOOPBACK_V4, true],
  ['127.255.255.254', LOOPBACK_V4, true],
  ['169.254.169.254', LINK_LOCAL_V4, false],
  ['169.254.0.1', LINK_LOCAL_V4, false],
  ['172.16.0.0', 'private-use (172.16.0.0/12)', true],
  ['172.31.255.255', 'private-use (172.16.0.0/12)', true],
  ['192.0.0.8', 'IETF protocol assignments (192.0.0.0/24)', false],
  ['192.0.0.170', 'IETF protocol assignments (192.0.0.0/24)', false],
  ['192.0.2.1', 'documentation (192.0.2.0/24)', false],
  ['192.88.99.1', 'deprecated 6to4 relay anycast (192.88.99.0/24)', false],
  ['192.168.0.0', 'private-use (192.168.0.0/16)', true],
  ['192.168.255.255', 'private-use (192.168.0.0/16)', true],
  ['198.18.0.0', 'benchmarking (198.18.0.0/15)', false],
  ['198.19.255.255', 'benchmarking (198.18.0.0/15)', false],
  ['198.51.100.7', 'documentation (198.51.100.0/24)', false],
  ['203.0.113.9', 'documentation (203.0.113.0/24)', false],
  ['224.0.0.1', 'multicast (224.0.0.0/4)', false],
  ['239.255.255.250', 'multicast (224.0.0.0/4)', false],
  ['240.0.0.1', 'reserved (240.0.0.0/4)', false],
  ['255.255.255.254', 'reserved (240.0.0.0/4)', false],
  ['255.255.255.255', 'limited broadcast (255.255.255.255/32)', false],
  // IPv4 in the other notations a URL host may use
  ['2130706433', LOOPBACK_V4, true],
  ['0177.0.0.1', LOOPBACK_V4, true],
  ['0x7f.1', LOOPBACK_V4, true],
  ['0X7F.0.0.1', LOOPBACK_V4, true],
  ['127.1', LOOPBACK_V4, true],
  ['127.0.1', LOOPBACK_V4, true],
  ['0x7f000001', LOOPBACK_V4, true],
  ['017700000001', LOOPBACK_V4, true],
  ['127.0.0.1.', LOOPBACK_V4, true],
  ['0xa.0.0.1', PRIVATE_10, true],
  ['012.0.0.1', PRIVATE_10, true],
  ['3232235777', 'private-use (192.168.0.0/16)', true],
  ['0xa9.0xfe.0xa9.0xfe', LINK_LOCAL_V4, false],
  ['2852039166', LINK_LOCAL_V4, false],
  ['0', '"this network" (0.0.0.0/8)', false],
  ['4294967295', 'limited broadcast (255.255.255.255/32)', false],
  ['134744072', undefined, true],
  ['0x8.0x8.0x8.0x8', undefined, true],
  // public IPv6
  ['2001:4860:4860::8888', undefined, true],
  ['2606:4700:4700::1111', undefined, true],
  ['2a00:1450:4001:80b::200e', undefined, true],
  ['2001:200::1', undefined, true],
  ['2001:db9::1', undefined, true],
  ['2003::1', undefined, true],
  ['3ffe:ffff::1', undefined, true],
  ['[2001:4860:4860::8888]', undefined, true],
  // refused IPv6 ranges
  ['::', 'unspecified (::/128)', false],
  ['::1', 'loopback (::1/128)', true],
  ['0:0:0:0:0:0:0:1', 'loopback (::1/128)', true],
  ['[::1]', 'loopback (::1/128)', true],
  ['::2', 'IPv4-compatible (deprecated) (::/96)', false],
  ['::127.0.0.1', 'IPv4-compatible (deprecated) (::/96)', false],
  ['::7f00:1', 'IPv4-compatible (deprecated) (::/96)', false],
  ['[::7f00:1]', 'IPv4-compatible (deprecated) (::/96)', false],
  ['::8.8.8.8', 'IPv4-compatible (deprecated) (::/96)', false],
  ['64:ff9b:1::808:808', 'local-use NAT64 (64:ff9b:1::/48)', false],
  ['100::1', 'discard-only (100::/64)', false],
  ['100:0:0:1::1', 'dummy prefix (100:0:0:1::/64)', false],
  ['2001::1', 'Teredo (2001::/32)', false],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (2001::/32)', false],
  ['2001:2::1', 'benchmarking (2001:2::/48)', false],
  ['2001:10::1', 'IETF protocol assignments (2001::/23)', false],
  ['2001:1ff:ffff::1', 'IETF protocol assignments (2001::/23)', false],
  ['2001:db8::1', 'documentation (2001:db8::/32)', false],
  ['2001:db8:ffff:ffff::1', 'documentation (2001:db8::/32)', false],
  ['[2001:db8::1]', 'documentation (2001:db8::/32)', false],
  ['3fff::1', 'documentation (3fff::/20)', false],
  ['5f00::1', 'segment routing (SRv6) SIDs (5f00::/16)', false],
  ['fc00::1', 'unique local (fc00::/7)', true],
  ['fd12:3456::1', 'unique local (fc00::/7)', true],
  ['fe80::1', 'link-local (fe80::/10)', false],
  ['fe80::1%eth0', 'link-local (fe80::/10)', false],
  ['febf::1', 'link-local (fe80::/10)', false],
  ['fec0::1', 'site-local (deprecated) (fec0::/10)', false],
  ['ff02::1', 'multicast (ff00::/8)', false],
  ['ff0e::101', 'multicast (ff00::/8)', false],
  ['1::1', 'unassigned (outside global unicast 2000::/3)', false],
  ['4000::1', 'unassigned (outside global unicast 2000::/3)', false],
  ['e000::1', 'unassigned (outside global unicast 2000::/3)', false],
  // IPv6 forms that carry an IPv4 address are judged by it
  ['::ffff:127.0.0.1', `IPv4-mapped (::ffff:0:0/96) of ${LOOPBACK_V4}`, true],
  ['::ffff:7f00:1', `IPv4-mapped (::ffff:0:0/96) of ${LOOPBACK_V4}`, true],
  ['[::ffff:7f00:1]', `IPv4-mapped (::ffff:0:0/96) of ${LOOPBACK_V4}`, true],
  ['0:0:0:0:0:ffff:7f00:1', `IPv4-mapped (::ffff:0:0/96) of ${LOOPBACK_V4}`, true],
  ['::ffff:a9fe:a9fe', `IPv4-mapped (::ffff:0:0/96) of ${LINK_LOCAL_V4}`, false],
  ['::ffff:192.168.0.10', 'IPv4-mapped (::ffff:0:0/96) of private-use (192.168.0.0/16)', true],
  ['::ffff:198.18.0.1', 'IPv4-mapped (::ffff:0:0/96) of benchmarking (198.18.0.0/15)', false],
  ['::ffff:8.8.8.8', undefined, true],
  ['64:ff9b::10.0.0.1', `NAT64 (64:ff9b::/96) of ${PRIVATE_10}`, true],
  ['64:ff9b::7f00:1', `NAT64 (64:ff9b::/96) of ${LOOPBACK_V4}`, true],
  ['64:ff9b::a9fe:a9fe', `NAT64 (64:ff9b::/96) of ${LINK_LOCAL_V4}`, false],
  ['64:ff9b::c633:6407', 'NAT64 (64:ff9b::/96) of documentation (198.51.100.0/24)', false],
  ['64:ff9b::8.8.8.8', undefined, true],
  ['2002:7f00:1::1', `6to4 (2002::/16) of ${LOOPBACK_V4}`, true],
  ['2002:a00:1::', `6to4 (2002::/16) of ${PRIVATE_10}`, true],
  ['2002:a9fe:a9fe::1', `6to4 (2002::/16) of ${LINK_LOCAL_V4}`, false],
  ['2002:e000:1::1', '6to4 (2002::/16) of multicast (224.0.0.0/4)', false],
  ['2002:808:808::1', undefined, true],
  // not an address: never connected to
  ['localhost', 'not an IP address', false],
  ['example.com', 'not an IP address', false],
  ['', 'not an IP address', false],
  ['1.2.3.4.5', 'not an IP address', false],
  ['256.0.0.1', 'not an IP address', false],
  ['09.0.0.1', 'not an IP address', false],
  ['0x100000000', 'not an IP address', false],
  ['127.0.0.1/8', 'not an IP address', false],
  ['example.com@127.0.0.1', 'not an IP address', false],
  ['::ffff::1', 'not an IP address', false],
];

describe('addressRefusal: the one table', () => {
  it.each(TABLE)(
    '%s → refused as %s unless public; reachable when private targets are allowed: %s',
    (address, range, local) => {
      expect(addressRefusal(address, SWITCH_OFF)).toBe(range);
      expect(addressRefusal(address, SWITCH_ON)).toBe(local ? undefined : range);
    },
  );
});

describe('canonicalAddress', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:127.0.0.1'],
    ['::FFFF:7F00:1', '::FFFF:7F00:1'],
    ['::127.0.0.1', '::127.0.0.1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['1::2::3', undefined],
    ['localhost', undefined],
  ])('%s → %s', (text, canonical) => expect(canonicalAddress(text)).toBe(canonical));
});
