import { sourceAddressKey } from './source-address';

describe('sourceAddressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ])('%s → %s', (address, key) => {
    expect(sourceAddressKey(address)).toBe(key);
  });

  it('puts every address of one /64 in one bucket and neighbouring /64s in others', () => {
    expect(sourceAddressKey('2001:db8:0:1::a')).toBe(sourceAddressKey('2001:db8:0:1:ffff::b'));
    expect(sourceAddressKey('2001:db8:0:1::a')).not.toBe(sourceAddressKey('2001:db8:0:2::a'));
  });
});
