import { isIP } from 'node:net';

/** Which addresses may be connected to: ALLOW_PRIVATE_CALLBACKS widens it for local use and tests. */
export interface AddressPolicy {
  /** Loopback, private-use, shared (CGNAT) and unique-local addresses, and localhost names, may be reached. */
  allowPrivate: boolean;
}

export interface SpecialPurposeRange {
  /** What the range is, with its prefix: `loopback (127.0.0.0/8)`. */
  name: string;
  /** Reachable when private targets are allowed. */
  local: boolean;
}

interface Row {
  cidr: string;
  name: string;
  local?: true;
  /** For ranges that carry an IPv4 address: it, from the IPv6 address's 128 bits. */
  embeddedIPv4?: (bits: bigint) => bigint;
}

const low32 = (bits: bigint) => bits & 0xffff_ffffn;

/**
 * The IANA IPv4 Special-Purpose Address Registry's ranges that are not globally reachable, with
 * multicast (224.0.0.0/4) from the multicast registry. Globally reachable entries (AS112, AMT)
 * are public.
 */
const IPV4_ROWS: Row[] = [
  { cidr: '0.0.0.0/8', name: '"this network"' },
  { cidr: '10.0.0.0/8', name: 'private-use', local: true },
  { cidr: '100.64.0.0/10', name: 'shared address space (carrier-grade NAT)', local: true },
  { cidr: '127.0.0.0/8', name: 'loopback', local: true },
  // Also where cloud metadata services answer (169.254.169.254), so never reachable, not even for local use.
  { cidr: '169.254.0.0/16', name: 'link-local' },
  { cidr: '172.16.0.0/12', name: 'private-use', local: true },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', name: 'documentation' },
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast' },
  { cidr: '192.168.0.0/16', name: 'private-use', local: true },
  { cidr: '198.18.0.0/15', name: 'benchmarking' },
  { cidr: '198.51.100.0/24', name: 'documentation' },
  { cidr: '203.0.113.0/24', name: 'documentation' },
  { cidr: '224.0.0.0/4', name: 'multicast' },
  { cidr: '240.0.0.0/4', name: 'reserved' },
  { cidr: '255.255.255.255/32', name: 'limited broadcast' },
];

/**
 * The IANA IPv6 Special-Purpose Address Registry's ranges that are not globally reachable, with
 * multicast (ff00::/8) and the deprecated IPv4-compatible (::/96) and site-local (fec0::/10)
 * forms. Ranges that carry an IPv4 address are judged by that address. Anything else outside
 * global unicast (2000::/3) is unassigned and refused as well.
 */
const IPV6_ROWS: Row[] = [
  { cidr: '::/128', name: 'unspecified' },
  { cidr: '::1/128', name: 'loopback', local: true },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', embeddedIPv4: low32 },
  { cidr: '::/96', name: 'IPv4-compatible (deprecated)' },
  { cidr: '64:ff9b::/96', name: 'NAT64', embeddedIPv4: low32 },
  // Where the IPv4 address sits depends on the operator's prefix length, and the range is local anyway.
  { cidr: '64:ff9b:1::/48', name: 'local-use NAT64' },
  { cidr: '100::/64', name: 'discard-only' },
  { cidr: '100:0:0:1::/64', name: 'dummy prefix' },
  { cidr: '2001::/23', name: 'IETF protocol assignments' },
  { cidr: '2001::/32', name: 'Teredo' },
  { cidr: '2001:2::/48', name: 'benchmarking' },
  { cidr: '2001:db8::/32', name: 'documentation' },
  { cidr: '2002::/16', name: '6to4', embeddedIPv4: (bits) => (bits >> 80n) & 0xffff_ffffn },
  { cidr: '3fff::/20', name: 'documentation' },
  { cidr: '5f00::/16', name: 'segment routing (SRv6) SIDs' },
  { cidr: 'fc00::/7', name: 'unique local', local: true },
  { cidr: 'fe80::/10', name: 'link-local' },
  { cidr: 'fec0::/10', name: 'site-local (deprecated)' },
  { cidr: 'ff00::/8', name: 'multicast' },
];

function ipv4Bits(text: string): bigint {
  return text.split('.').reduce((bits, octet) => (bits << 8n) | BigInt(Number(octet)), 0n);
}

/** The 128 bits of a valid IPv6 address (net.isIP said 6), dotted IPv4 tail included. */
function ipv6Bits(text: string): bigint {
  const groups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const v4 = ipv4Bits(group);
          return [Number(v4 >> 16n), Number(v4 & 0xffffn)];
        });
  const [head, tail] = text.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all =
    tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((bits, group) => (bits << 16n) | BigInt(group), 0n);
}

interface CompiledRow extends Row {
  prefix: number;
  network: bigint;
  shift: bigint;
}

/** Most specific first, so 255.255.255.255 is broadcast rather than reserved and ::1 is not IPv4-compatible. */
function compile(rows: Row[], width: 32 | 128): CompiledRow[] {
  return rows
    .map((row) => {
      const [network, prefix] = row.cidr.split('/');
      return {
        ...row,
        prefix: Number(prefix),
        network: width === 32 ? ipv4Bits(network) : ipv6Bits(network),
        shift: BigInt(width - Number(prefix)),
      };
    })
    .sort((a, b) => b.prefix - a.prefix);
}

const IPV4 = compile(IPV4_ROWS, 32);
const IPV6 = compile(IPV6_ROWS, 128);
const GLOBAL_UNICAST = compile([{ cidr: '2000::/3', name: 'global unicast' }], 128)[0];

const contains = (row: CompiledRow, bits: bigint) => bits >> row.shift === row.network >> row.shift;
const rangeOf = (row: Row): SpecialPurposeRange => ({ name: `${row.name} (${row.cidr})`, local: row.local === true });

function ipv4Range(bits: bigint): SpecialPurposeRange | undefined {
  const row = IPV4.find((candidate) => contains(candidate, bits));
  return row && rangeOf(row);
}

function ipv6Range(bits: bigint): SpecialPurposeRange | undefined {
  const row = IPV6.find((candidate) => contains(candidate, bits));
  if (row?.embeddedIPv4) {
    const inner = ipv4Range(row.embeddedIPv4(bits));
    return inner && { name: `${rangeOf(row).name} of ${inner.name}`, local: inner.local };
  }
  if (row) return rangeOf(row);
  return contains(GLOBAL_UNICAST, bits)
    ? undefined
    : { name: 'unassigned (outside global unicast 2000::/3)', local: false };
}

/**
 * An IP address in any notation a URL host may use (`2130706433`, `0177.0.0.1`, `0x7f.1`,
 * `127.1`, `[::ffff:7f00:1]`), normalised the way WHATWG URL parsing does; a zone id
 * (`fe80::1%eth0`, as DNS answers may carry) is dropped. Undefined when it is no IP address.
 */
export function canonicalAddress(text: string): string | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').split('%')[0];
  if (isIP(bare)) return bare;
  // Only digits, hex letters, `x`, dots and colons can spell an address; anything else (`@`, `/`)
  // would make the URL parser below read another part of a URL as the host.
  if (!/^[0-9a-fx.:]+$/i.test(bare)) return undefined;
  try {
    const host = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, '$1');
    return isIP(host) ? host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The special-purpose range `address` lies in; undefined for a public address. Not an address at all is a range of its
 * own.
 */
export function specialPurposeRange(address: string): SpecialPurposeRange | undefined {
  const canonical = canonicalAddress(address);
  if (canonical === undefined) return { name: 'not an IP address', local: false };
  return isIP(canonical) === 4 ? ipv4Range(ipv4Bits(canonical)) : ipv6Range(ipv6Bits(canonical));
}

/**
 * The one decision whether an address may be connected to: undefined when it may, otherwise the
 * range that refuses it (for a message). Public addresses may; the local ranges may when
 * `policy.allowPrivate`; every other special-purpose range never.
 */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  const range = specialPurposeRange(address);
  if (range === undefined || (range.local && policy.allowPrivate)) return undefined;
  return range.name;
}
