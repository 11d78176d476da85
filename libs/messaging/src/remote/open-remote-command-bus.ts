import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import type { CommandBus } from '../command-bus';
import type { CommandTransport } from './command-address';
import { listenTransport, sendTransport, type CommandRoutes } from './command-routes';
import { GrpcCommandBus } from './grpc-command-bus';
import { TcpCommandBus } from './tcp-command-bus';

/**
 * The command bus the addresses' schemes name (tcp:// or grpc://): the services' addresses for
 * sending, COMMANDS_LISTEN_URL for serving. Only a gateway sends and only services serve, so the
 * two may differ (a service's unused sender defaults need not follow its listener's scheme).
 */
export function openRemoteCommandBus(routes: CommandRoutes, log: Logger, metrics: Metrics, timeoutMs: number): CommandBus {
  const open = (transport: CommandTransport): CommandBus =>
    transport === 'grpc' ? new GrpcCommandBus(routes, log, metrics, timeoutMs) : new TcpCommandBus(routes, log, metrics, timeoutMs);
  const sending = open(sendTransport(routes));
  const listening = listenTransport(routes);
  if (listening === undefined || listening === sendTransport(routes)) return sending;
  const serving = open(listening);
  return {
    send: (service, name, payload, options) => sending.send(service, name, payload, options),
    serve: (service, handlers) => serving.serve(service, handlers),
    stopServing: () => serving.stopServing(),
    close: async () => {
      await Promise.all([sending.close(), serving.close()]);
    },
  };
}
