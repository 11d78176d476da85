import { addressOf, type ContractMessage, type ServiceContract } from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { currentTraceparent, inSpan } from '@paygate/tracing';
import {
  commandSpanAttributes,
  commandSpanName,
  replyValue,
  timedCommandHandling,
  UnknownServiceError,
  wireHandlers,
  type CommandBus,
  type ExecuteMessage,
  type WireHandlers,
} from '../command-bus';

/**
 * Standalone mode: every service lives in this process, so a command is a function call (which
 * keeps the sender's log context: the request id reaches the handler as it would over Kafka). It
 * is traced as a remote one is: a client span whose traceparent the handler's server span continues.
 */
export class InProcessCommandBus implements CommandBus {
  private readonly services = new Map<string, WireHandlers>();
  private readonly handle: ReturnType<typeof timedCommandHandling>;

  constructor(metrics: Metrics, log: Logger) {
    this.handle = timedCommandHandling(metrics, log);
  }

  async send<Result>(message: ContractMessage<Result>): Promise<Result> {
    const { service, message: name } = addressOf(message);
    const handlers = this.services.get(service);
    if (!handlers) throw new UnknownServiceError(service);
    const reply = await inSpan(
      commandSpanName(service, name),
      { role: 'client', attributes: commandSpanAttributes(service, name) },
      // A JSON round trip gives handlers the same plain data a broker would deliver.
      () =>
        this.handle(handlers, name, JSON.parse(JSON.stringify(message.payload)), {
          service,
          traceparent: currentTraceparent(),
        }),
    );
    return replyValue(JSON.parse(JSON.stringify(reply))) as Result;
  }

  async serve(contract: ServiceContract, execute: ExecuteMessage): Promise<void> {
    this.services.set(contract.name, { ...this.services.get(contract.name), ...wireHandlers(contract, execute) });
  }

  /** In process, commands come from this process's own requests, which the HTTP drain has finished. */
  async stopServing(): Promise<void> {}

  async close(): Promise<void> {
    this.services.clear();
  }
}
