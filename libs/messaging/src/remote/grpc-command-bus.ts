import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { ClientGrpcProxy, ServerGrpc } from '@nestjs/microservices';
import { firstValueFrom, type Observable } from 'rxjs';
import { type MessageName, type PayloadOf, type ResultOf, type ServiceContract, type ServiceHandlers, type ServiceRef } from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { replyValue, type CommandBus, type CommandReply, type SendOptions } from '../command-bus';
import { grpcTarget, hostPortText, listenAddress, parseCommandAddress } from './command-address';
import {
  COMMANDS_GRPC_SERVICE,
  COMMANDS_PACKAGE,
  commandsPackageDefinition,
  type CommandReplyMessage,
  type CommandRequestMessage,
} from './grpc-commands-proto';
import { commandRouteMissing, listenUrlOf, type CommandRoutes } from './command-routes';
import { outgoingCommand, sendFailure } from './outgoing-command';
import { ServedCommands } from './served-commands';

const REQUEST_ID = 'paygate-request-id';
const CORRELATION_ID = 'paygate-correlation-id';
const ORDER_KEY = 'paygate-order-key';

/**
 * Channel options: calls spread round-robin over every address a target resolves to; a server
 * closes connections after a few minutes so clients re-resolve its DNS name and find instances
 * started since (a Kubernetes rollout adds pods behind the same name).
 */
const CLIENT_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.keepalive_time_ms': 30_000,
  'grpc.dns_min_time_between_resolutions_ms': 5_000,
};
const SERVER_OPTIONS = {
  'grpc.max_connection_age_ms': 5 * 60_000,
  'grpc.max_connection_age_grace_ms': 30_000,
  'grpc.keepalive_permit_without_calls': 1,
};

interface CommandsClient {
  Send(request: CommandRequestMessage, metadata: Metadata, options: { deadline: number }): Observable<CommandReplyMessage>;
}

/**
 * Request-reply over gRPC (@nestjs/microservices' transport): one unary call per command, to
 * any instance of the owning service, round-robin. Instances share their streams through the
 * event store, so any of them can take any command.
 */
export class GrpcCommandBus implements CommandBus {
  private readonly served: ServedCommands;
  private readonly clients = new Map<string, { proxy: ClientGrpcProxy; commands: CommandsClient }>();
  private server?: Promise<ServerGrpc>;

  constructor(
    private readonly routes: CommandRoutes,
    private readonly log: Logger,
    metrics: Metrics,
    private readonly timeoutMs: number,
  ) {
    this.served = new ServedCommands(metrics, log);
  }

  async send<Contract extends ServiceContract, Name extends MessageName<Contract>>(
    { name: service }: ServiceRef<Contract>,
    command: Name,
    payload: PayloadOf<Contract, Name>,
    options: SendOptions = {},
  ): Promise<ResultOf<Contract, Name>> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    // waitForReady: a call made while an instance restarts waits for one to answer (up to the
    // deadline) instead of failing at once; a call is sent once, never replayed by gRPC.
    const metadata = new Metadata({ waitForReady: true });
    const envelope = outgoingCommand(service, command, payload, options);
    if (envelope.requestId) metadata.set(REQUEST_ID, envelope.requestId);
    if (envelope.correlationId) metadata.set(CORRELATION_ID, envelope.correlationId);
    if (envelope.key) metadata.set(ORDER_KEY, envelope.key);
    const request: CommandRequestMessage = { service, command, payload: Buffer.from(JSON.stringify(payload)) };
    let answer: CommandReplyMessage;
    try {
      answer = await firstValueFrom(this.client(service).Send(request, metadata, { deadline: Date.now() + timeoutMs }));
    } catch (error) {
      throw sendFailure(error, (error as Partial<ServiceError>).code === GrpcStatus.DEADLINE_EXCEEDED, envelope, timeoutMs);
    }
    return replyValue(JSON.parse(answer.reply.toString('utf8')) as CommandReply) as ResultOf<Contract, Name>;
  }

  private client(service: string): CommandsClient {
    let client = this.clients.get(service);
    if (!client) {
      const url = this.routes.services[service];
      if (!url) throw commandRouteMissing(service);
      const proxy = new ClientGrpcProxy({
        package: COMMANDS_PACKAGE,
        packageDefinition: commandsPackageDefinition(),
        url: grpcTarget(parseCommandAddress(url)),
        channelOptions: CLIENT_OPTIONS,
      });
      client = { proxy, commands: proxy.getService<CommandsClient>(COMMANDS_GRPC_SERVICE) };
      this.clients.set(service, client);
    }
    return client.commands;
  }

  async serve<Contract extends ServiceContract>({ name: service }: ServiceRef<Contract>, handlers: ServiceHandlers<Contract>): Promise<void> {
    this.served.add(service, handlers);
    const url = listenUrlOf(this.routes, service);
    this.server ??= this.listen(url).catch((error: unknown) => {
      this.server = undefined;
      throw error;
    });
    await this.server;
  }

  private async listen(url: string): Promise<ServerGrpc> {
    const server = new ServerGrpc({
      package: COMMANDS_PACKAGE,
      packageDefinition: commandsPackageDefinition(),
      url: hostPortText(listenAddress(url)),
      channelOptions: SERVER_OPTIONS,
      gracefulShutdown: true,
    });
    server.addHandler({ service: COMMANDS_GRPC_SERVICE, rpc: 'Send', streaming: 'no_stream' }, (request: CommandRequestMessage, metadata: Metadata) =>
      this.receive(request, metadata),
    );
    await new Promise<void>((resolve, reject) => void server.listen((error?: unknown) => (error ? reject(error) : resolve())));
    this.log.info('serving commands', { url, services: this.served.services });
    return server;
  }

  private async receive(request: CommandRequestMessage, metadata: Metadata): Promise<CommandReplyMessage> {
    let payload: unknown;
    try {
      payload = JSON.parse(request.payload.toString('utf8'));
    } catch {
      return encode({ ok: false, rejection: { code: 'invalid_request', message: 'the command payload is not JSON' } });
    }
    const header = (key: string) => {
      const [value] = metadata.get(key);
      return typeof value === 'string' ? value : undefined;
    };
    return encode(
      await this.served.receive({
        service: request.service,
        command: request.command,
        payload,
        requestId: header(REQUEST_ID),
        correlationId: header(CORRELATION_ID),
        key: header(ORDER_KEY),
      }),
    );
  }

  async close(): Promise<void> {
    for (const { proxy } of this.clients.values()) proxy.close();
    this.clients.clear();
    await this.stopServing();
  }

  async stopServing(): Promise<void> {
    const server = await this.server?.catch(() => undefined);
    this.server = undefined;
    // Graceful: commands in hand finish and answer; new calls go to the other instances.
    await server?.close();
  }
}

function encode(reply: CommandReply): CommandReplyMessage {
  return { reply: Buffer.from(JSON.stringify(reply)) };
}
