import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ConnectionOptions, Server as TlsServer, TLSSocket } from 'node:tls';
import { ClientTCP, ServerTCP } from '@nestjs/microservices';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import { addressOf, servingAppOf, type ContractMessage, type ServiceContract } from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { inSpan } from '@paygate/tracing';
import {
  commandSpanAttributes,
  commandSpanName,
  replyValue,
  wireHandlers,
  type CommandBus,
  type CommandReply,
  type ExecuteMessage,
  type SendOptions,
} from '../command-bus';
import { listenAddress, parseCommandAddress, type HostPort } from './command-address';
import { appNamedBy } from './command-identity';
import { commandRouteMissing, commandTlsOf, listenUrlOf, type CommandRoutes } from './command-routes';
import { clientTlsOptions, readCommandTls, sameCommandTls, serverTlsOptions, type CommandTls } from './command-tls';
import { outgoingCommand, sendFailure } from './outgoing-command';
import { RefusedConnections } from './refused-connections';
import { ServedCommands, type CommandEnvelope } from './served-commands';

const PATTERN = 'paygate.command.v1';
/** How long an instance that refused a connection is passed over. */
const DOWN_MS = 500;
/** How often a DNS name is looked up again, so instances started since get commands too. */
const RESOLVE_EVERY_MS = 5_000;
/** Time for the last answers to be written before a draining instance closes its sockets. */
const FLUSH_MS = 100;
/** A peer that opens the command port and does not finish a TLS handshake in this long is dropped. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** How often COMMANDS_TLS_DIR is read again, so a renewed certificate (cert-manager) is taken up without a restart. */
const TLS_RENEWAL_CHECK_MS = 60_000;

/** What a TCP instance answers: the command's reply, or that it is shutting down and did not run it. */
type TcpAnswer = { reply: CommandReply } | { draining: true };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The options every client of this bus connects with: one object, shared by reference (Nest's
 * client spreads it into each new connection), so a renewal reaches the next connection of every
 * instance while the connections open keep going.
 */
type ClientTlsOptions = ConnectionOptions;

/** Nest's TCP client over mutual TLS, its socket errors in our log instead of Nest's console logger. */
class InstanceClient extends ClientTCP {
  downUntil = 0;
  constructor(
    readonly address: string,
    hostPort: HostPort,
    tlsOptions: ClientTlsOptions,
    private readonly log: Logger,
  ) {
    super({ host: hostPort.host, port: hostPort.port, tlsOptions });
  }

  /** Shutting down: no commands until it is looked up again (by then it has gone, or restarted). */
  passOver(): void {
    this.downUntil = Date.now() + RESOLVE_EVERY_MS;
    this.close();
  }

  override handleError(error: unknown): void {
    this.log.debug('command connection failed', { instance: this.address, error });
  }
}

/**
 * The instances of one service: a connection to each address its route names (a DNS name is
 * looked up to all its addresses, again every few seconds), and commands dealt round-robin over
 * those that accept a connection.
 */
class ServiceInstances {
  private instances: InstanceClient[] = [];
  private next = 0;
  private resolvedAt = 0;
  private resolving?: Promise<void>;

  constructor(
    private readonly hosts: HostPort[],
    private readonly tlsOptions: ClientTlsOptions,
    private readonly log: Logger,
  ) {}

  /** A connected instance, waiting (until `deadline`) while none accepts. */
  async pick(deadline: number): Promise<InstanceClient> {
    for (;;) {
      await this.refresh();
      const now = Date.now();
      for (let tried = 0; tried < this.instances.length; tried++) {
        const instance = this.instances[this.next++ % this.instances.length];
        if (instance.downUntil > now) continue;
        try {
          await instance.connect();
          return instance;
        } catch {
          // Refused: nothing was sent, so another instance may take it.
          instance.downUntil = Date.now() + DOWN_MS;
        }
      }
      if (Date.now() + 50 >= deadline) throw new TimeoutError();
      await sleep(Math.min(100, deadline - Date.now() - 50));
    }
  }

  private refresh(): Promise<void> {
    if (Date.now() - this.resolvedAt < RESOLVE_EVERY_MS) return Promise.resolve();
    this.resolving ??= this.resolve().finally(() => (this.resolving = undefined));
    return this.resolving;
  }

  private async resolve(): Promise<void> {
    let found: HostPort[];
    try {
      found = (
        await Promise.all(
          this.hosts.map(async ({ host, port }) =>
            isIP(host)
              ? [{ host, port }]
              : (await lookup(host, { all: true })).map(({ address }) => ({ host: address, port })),
          ),
        )
      ).flat();
    } catch (error) {
      // Keep the instances known so far; a name that does not resolve yet is asked again soon.
      this.log.debug('command address lookup failed', { error });
      this.resolvedAt = Date.now() - RESOLVE_EVERY_MS + DOWN_MS;
      return;
    }
    const keep = new Map(this.instances.map((instance) => [instance.address, instance]));
    this.instances = found.map((hostPort) => {
      const address = `${hostPort.host}:${hostPort.port}`;
      const known = keep.get(address);
      keep.delete(address);
      return known ?? new InstanceClient(address, hostPort, this.tlsOptions, this.log);
    });
    for (const gone of keep.values()) gone.close();
    this.resolvedAt = Date.now();
  }

  close(): void {
    for (const instance of this.instances) instance.close();
    this.instances = [];
  }
}

/**
 * Request-reply over mutual TLS (@nestjs/microservices' TCP transport: length-prefixed JSON
 * frames on a socket). Both ends present a certificate from Paygate's private CA naming their
 * app: a service admits only the apps its contract lets send to it, and a sender talks only to
 * the app that serves, so nothing else on the network, nor another of Paygate's apps, can send
 * a service a command (docs/security.md).
 * Nest's client holds one connection, so one client reaches one instance; this bus keeps a client
 * per instance and deals commands round-robin over them, which is what makes several instances
 * behind one address share the load (bench:commands; docs/adr/0001-command-transport.md).
 */
export class TcpCommandBus implements CommandBus {
  private readonly served: ServedCommands;
  private readonly refused: RefusedConnections;
  private readonly services = new Map<string, ServiceInstances>();
  /** Per service, since each checks the server's certificate for the app that serves it; renewed in place. */
  private readonly clientTls = new Map<string, ClientTlsOptions>();
  /** The apps allowed to send what this process serves. */
  private readonly senders = new Set<string>();
  private readonly renewalCheck?: NodeJS.Timeout;
  private tls?: CommandTls;
  private server?: Promise<ServerTCP>;
  private draining = false;

  constructor(
    private readonly routes: CommandRoutes,
    private readonly log: Logger,
    metrics: Metrics,
    private readonly timeoutMs: number,
  ) {
    this.served = new ServedCommands(metrics, log);
    this.refused = new RefusedConnections(metrics, log);
    this.tls = routes.tls;
    if (routes.tls?.dir) this.renewalCheck = setInterval(() => this.renewTls(), TLS_RENEWAL_CHECK_MS).unref();
  }

  /**
   * Reads COMMANDS_TLS_DIR again; a changed certificate, key or CA applies to every connection
   * opened from now on, served or sent. A folder caught half-written keeps the last good one.
   */
  async renewTls(): Promise<boolean> {
    const current = this.tls;
    if (!current?.dir) return false;
    let next: CommandTls;
    try {
      next = readCommandTls(current.dir);
    } catch (error) {
      this.log.warn('command certificate not renewed: keeping the one in use', { error });
      return false;
    }
    if (sameCommandTls(current, next)) return false;
    this.tls = next;
    for (const [service, options] of this.clientTls)
      Object.assign(options, clientTlsOptions(next, servingApp(service)));
    const server = await this.server?.catch(() => undefined);
    server?.unwrap<TlsServer>().setSecureContext(serverTlsOptions(next));
    this.log.info('command certificate renewed', { dir: next.dir });
    return true;
  }

  send<Result>(message: ContractMessage<Result>, options: SendOptions = {}): Promise<Result> {
    const { service, message: command } = addressOf(message);
    return inSpan(
      commandSpanName(service, command),
      { role: 'client', attributes: commandSpanAttributes(service, command) },
      () => this.sendTo<Result>(service, command, message, options),
    );
  }

  private async sendTo<Result>(
    service: string,
    command: string,
    message: ContractMessage<Result>,
    options: SendOptions,
  ): Promise<Result> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    const envelope = outgoingCommand(service, command, message.payload, options);
    let reply: CommandReply | undefined;
    try {
      while (!reply) {
        const instance = await this.instancesOf(service).pick(deadline);
        const answer = await firstValueFrom(
          instance.send<TcpAnswer>(PATTERN, envelope).pipe(timeout({ first: Math.max(1, deadline - Date.now()) })),
        );
        if ('reply' in answer) reply = answer.reply;
        // An instance shutting down did not run it: another one may.
        else instance.passOver();
      }
    } catch (error) {
      throw sendFailure(error, error instanceof TimeoutError, envelope, timeoutMs);
    }
    return replyValue(reply) as Result;
  }

  private instancesOf(service: string): ServiceInstances {
    let instances = this.services.get(service);
    if (!instances) {
      const url = this.routes.services[service];
      if (!url) throw commandRouteMissing(service);
      const tls = clientTlsOptions(this.tls ?? commandTlsOf(this.routes), servingApp(service));
      this.clientTls.set(service, tls);
      instances = new ServiceInstances(parseCommandAddress(url).hosts, tls, this.log);
      this.services.set(service, instances);
    }
    return instances;
  }

  async serve(contract: ServiceContract, execute: ExecuteMessage): Promise<void> {
    this.served.add(contract.name, wireHandlers(contract, execute));
    for (const app of contract.sentBy) this.senders.add(app);
    const url = listenUrlOf(this.routes, contract.name);
    this.server ??= this.listen(url).catch((error: unknown) => {
      this.server = undefined;
      throw error;
    });
    await this.server;
  }

  private async listen(url: string): Promise<ServerTCP> {
    const { host, port } = listenAddress(url);
    const server = new ServerTCP({
      host,
      port,
      tlsOptions: {
        ...serverTlsOptions(this.tls ?? commandTlsOf(this.routes)),
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      },
    });
    // Before Nest's own listener reads a frame: a certificate the CA signed for an app that may
    // not send these commands (a webhook-dispatcher's, say) gets no further than the handshake.
    server.unwrap<TlsServer>().prependListener('secureConnection', (socket: TLSSocket) => {
      const app = appNamedBy(socket.getPeerCertificate());
      if (app !== undefined && this.senders.has(app)) return;
      this.refused.notASender(socket, app);
      socket.destroy();
    });
    server.addHandler(PATTERN, async (envelope: CommandEnvelope): Promise<TcpAnswer> => {
      if (this.draining) return { draining: true };
      return { reply: await this.served.receive(envelope) };
    });
    await new Promise<void>(
      (resolve, reject) => void server.listen((error?: unknown) => (error ? reject(error) : resolve())),
    );
    // A peer without a certificate from the private CA never gets past the handshake either.
    server
      .unwrap<TlsServer>()
      .on('tlsClientError', (error: Error, socket: TLSSocket) => this.refused.record(error, socket));
    this.log.info('serving commands', { url, services: this.served.services });
    return server;
  }

  async close(): Promise<void> {
    clearInterval(this.renewalCheck);
    for (const instances of this.services.values()) instances.close();
    this.services.clear();
    await this.stopServing();
  }

  async stopServing(): Promise<void> {
    const server = await this.server?.catch(() => undefined);
    this.server = undefined;
    if (!server) return;
    // Drain: no new connections, and commands that still arrive are handed back unrun (their
    // senders take them to another instance); those in hand finish and answer; then, once the
    // last answers are written, the sockets close.
    this.draining = true;
    server.unwrap<TlsServer>().close();
    await this.served.whenIdle();
    await sleep(FLUSH_MS);
    server.close();
  }
}

/** The app whose certificate a sender expects on the service's port. */
function servingApp(service: string): string {
  return servingAppOf(service) ?? service;
}
