import { ConfigError } from '@paygate/config';
import { UnavailableError } from '@paygate/contracts';
import type { CommandTls } from './command-tls';

/** Where each service's commands go, where this process serves the ones it owns, and what it proves itself with. */
export interface CommandRoutes {
  /** COMMANDS_LISTEN_URL: where this process serves the services it owns. */
  listenUrl?: string;
  /** Service name → its instances' address (tcp://, one DNS name or a list of IPs). */
  services: Readonly<Record<string, string>>;
  /** COMMANDS_TLS_DIR: every command connection is mutual TLS under Paygate's private CA (needed to send or serve). */
  tls?: CommandTls;
}

/** Sending or serving commands needs the credentials: there is no unauthenticated command connection. */
export function commandTlsOf(routes: CommandRoutes): CommandTls {
  if (!routes.tls)
    throw new ConfigError(
      'COMMANDS_TLS_DIR',
      `is not set: apps authenticate each other's commands with mutual TLS (give the folder holding ca.crt, tls.crt and tls.key)`,
    );
  return routes.tls;
}

export function commandRouteMissing(service: string): UnavailableError {
  return new UnavailableError(`no command address is configured for the ${service} service`);
}

/** A process that serves a service's commands needs somewhere to listen. */
export function listenUrlOf(routes: CommandRoutes, service: string): string {
  if (!routes.listenUrl)
    throw new ConfigError(
      'COMMANDS_LISTEN_URL',
      `is not set, and this app serves the ${service} service's commands (the gateway has command addresses)`,
    );
  return routes.listenUrl;
}
