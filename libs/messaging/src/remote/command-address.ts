import { isIP } from 'node:net';

export class CommandAddressError extends Error {
  override readonly name = 'CommandAddressError';
}

/** The transports a command address may name: gRPC (HTTP/2) or TCP (JSON frames). */
export type CommandTransport = 'grpc' | 'tcp';

export interface HostPort {
  host: string;
  port: number;
}

export interface CommandAddress {
  transport: CommandTransport;
  hosts: HostPort[];
}

/** `grpc://host:port[,host:port…]` or `tcp://…`: one DNS name, or the instances' IP addresses. */
export function parseCommandAddress(url: string): CommandAddress {
  const match = /^(grpc|tcp):\/\/(.*?)\/?$/.exec(url);
  if (!match) throw new CommandAddressError(`"${url}" is not a command address (expected grpc://host:port or tcp://host:port, or a list of host:port)`);
  if (!match[2]) throw new CommandAddressError(`"${url}" names no host`);
  const hosts = match[2].split(',').map((entry) => {
    const hostPort = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(entry.trim());
    const port = hostPort ? Number(hostPort[2]) : NaN;
    if (!hostPort || port > 65_535) throw new CommandAddressError(`"${entry}" in "${url}" is not host:port`);
    return { host: hostPort[1].replace(/^\[|\]$/g, ''), port };
  });
  const families = new Set(hosts.map((h) => isIP(h.host)));
  if (hosts.length > 1 && families.has(0))
    throw new CommandAddressError(`"${url}": a list of instances must be IP addresses; give one DNS name to reach every address it resolves to`);
  if (families.size > 1) throw new CommandAddressError(`"${url}": mixes IPv4 and IPv6 addresses`);
  return { transport: match[1] as CommandTransport, hosts };
}

export const hostPortText = ({ host, port }: HostPort) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * A service's address as a gRPC target. One host name resolves through DNS to every address it
 * has (a Kubernetes headless Service lists each pod) and calls go round-robin over them; a list
 * of IP addresses is taken as it is (several instances on one machine).
 */
export function grpcTarget({ hosts }: CommandAddress): string {
  if (hosts.length === 1 && isIP(hosts[0].host) === 0) return `dns:///${hostPortText(hosts[0])}`;
  return `${isIP(hosts[0].host) === 6 ? 'ipv6' : 'ipv4'}:${hosts.map(hostPortText).join(',')}`;
}

/** Where a process serves its commands: one address. */
export function listenAddress(url: string): CommandAddress & { host: string; port: number } {
  const address = parseCommandAddress(url);
  if (address.hosts.length !== 1) throw new CommandAddressError(`"${url}": a process listens on one address`);
  return { ...address, ...address.hosts[0] };
}
