import { ConfigError } from '@paygate/config';
import { UnavailableError } from '@paygate/contracts';
import { parseCommandAddress, type CommandTransport } from './command-address';

/** Where each service's commands go, and where this process serves the ones it owns. */
export interface CommandRoutes {
  /** COMMANDS_LISTEN_URL: where this process serves the services it owns. */
  listenUrl?: string;
  /** Service name → its instances' address (grpc:// or tcp://, one DNS name or a list of IPs). */
  services: Readonly<Record<string, string>>;
}

/** The transport the services' addresses name (one for all: a mixture is a configuration error). */
export function sendTransport(routes: CommandRoutes): CommandTransport {
  const transports = new Set(Object.values(routes.services).map((url) => parseCommandAddress(url).transport));
  if (transports.size > 1)
    throw new ConfigError('COLLECTIONS_COMMANDS_URL', 'PAYMENTS_COMMANDS_URL and WEBHOOKS_COMMANDS_URL must name one transport (all tcp:// or all grpc://)');
  return [...transports][0] ?? 'tcp';
}

export function listenTransport(routes: CommandRoutes): CommandTransport | undefined {
  return routes.listenUrl ? parseCommandAddress(routes.listenUrl).transport : undefined;
}

export function commandRouteMissing(service: string): UnavailableError {
  return new UnavailableError(`no command address is configured for the ${service} service`);
}

/** A process that serves a service's commands needs somewhere to listen. */
export function listenUrlOf(routes: CommandRoutes, service: string): string {
  if (!routes.listenUrl)
    throw new ConfigError('COMMANDS_LISTEN_URL', `is not set, and this app serves the ${service} service's commands (the gateway has command addresses)`);
  return routes.listenUrl;
}
