import type { MessageName, PayloadOf, ResultOf, ServiceContract, ServiceHandlers, ServiceRef } from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { replyValue, timedCommandHandling, UnknownServiceError, type CommandBus, type WireHandlers } from '../command-bus';

/**
 * Standalone mode: every service lives in this process, so a command is a function call (which
 * keeps the sender's log context: the request id reaches the handler as it would over Kafka).
 */
export class InProcessCommandBus implements CommandBus {
  private readonly services = new Map<string, WireHandlers>();
  private readonly handle: ReturnType<typeof timedCommandHandling>;

  constructor(metrics: Metrics, log: Logger) {
    this.handle = timedCommandHandling(metrics, log);
  }

  async send<Contract extends ServiceContract, Name extends MessageName<Contract>>(
    service: ServiceRef<Contract>,
    name: Name,
    payload: PayloadOf<Contract, Name>,
  ): Promise<ResultOf<Contract, Name>> {
    const handlers = this.services.get(service.name);
    if (!handlers) throw new UnknownServiceError(service.name);
    // A JSON round trip gives handlers the same plain data a broker would deliver.
    const reply = await this.handle(handlers, name, JSON.parse(JSON.stringify(payload)));
    return replyValue(JSON.parse(JSON.stringify(reply))) as ResultOf<Contract, Name>;
  }

  async serve<Contract extends ServiceContract>(service: ServiceRef<Contract>, handlers: ServiceHandlers<Contract>): Promise<void> {
    this.services.set(service.name, { ...this.services.get(service.name), ...handlers });
  }

  /** In process, commands come from this process's own requests, which the HTTP drain has finished. */
  async stopServing(): Promise<void> {}

  async close(): Promise<void> {
    this.services.clear();
  }
}
