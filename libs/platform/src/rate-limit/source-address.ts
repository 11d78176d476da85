import { isIPv4, isIPv6 } from 'node:net';

/**
 * The bucket key of a client address: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64, the
 * block one subscriber is usually given, so rotating through it buys no fresh buckets.
 */
export function sourceAddressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  const bare = address.split('%')[0];
  if (!isIPv6(bare)) return address;
  const groups = (part: string) =>
    (part === '' ? [] : part.split(':')).flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  const [head, tail] = bare.split('::');
  const headGroups = groups(head);
  const tailGroups = tail === undefined ? [] : groups(tail);
  const full = [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${full
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
