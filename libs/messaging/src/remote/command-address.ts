import { isIP } from 'node:net';

export class CommandAddressError extends Error {
  override readonly name = 'CommandAddressError';
}

export interface HostPort {
  host: string;
  port: number;
}

export interface CommandAddress {
  hosts: HostPort[];
}

/** `tcp://host:port[,host:port…]`: one DNS name, or the instances' IP addresses. */
export function parseCommandAddress(url: string): CommandAddress {
  const match = /^tcp:\/\/(.*?)\/?$/.exec(url);
  if (!match)
    throw new CommandAddressError(
      `"${url}" is not a command address (expected tcp://host:port, or a list of host:port)`,
    );
  if (!match[1]) throw new CommandAddressError(`"${url}" names no host`);
  const hosts = match[1].split(',').map((entry) => {
    const hostPort = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(entry.trim());
    const port = hostPort ? Number(hostPort[2]) : NaN;
    if (!hostPort || port > 65_535) throw new CommandAddressError(`"${entry}" in "${url}" is not host:port`);
    return { host: hostPort[1].replace(/^\[|\]$/g, ''), port };
  });
  const families = new Set(hosts.map((h) => isIP(h.host)));
  if (hosts.length > 1 && families.has(0))
    throw new CommandAddressError(
      `"${url}": a list of instances must be IP addresses; give one DNS name to reach every address it resolves to`,
    );
  if (families.size > 1) throw new CommandAddressError(`"${url}": mixes IPv4 and IPv6 addresses`);
  return { hosts };
}

/** Where a process serves its commands: one address. */
export function listenAddress(url: string): HostPort {
  const address = parseCommandAddress(url);
  if (address.hosts.length !== 1) throw new CommandAddressError(`"${url}": a process listens on one address`);
  return address.hosts[0];
}
