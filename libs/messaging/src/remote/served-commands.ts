import { withLogContext, type Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { timedCommandHandling, type CommandReply, type WireHandlers } from '../command-bus';

/** One command as it crosses the wire to the process that serves its service. */
export interface CommandEnvelope {
  service: string;
  command: string;
  payload: unknown;
  /** The sender's log context, so the handler logs the same request and flow. */
  requestId?: string;
  correlationId?: string;
  /** Commands with the same key run one after another in the receiving instance. */
  key?: string;
  /** The sender's span (W3C traceparent) when tracing is on: the handler's span continues its trace. */
  traceparent?: string;
}

const notServedYet = (service: string): CommandReply => ({
  ok: false,
  rejection: { code: 'service_unavailable', message: `${service} is not served by this process yet; try again` },
});

/**
 * The receiving side every remote transport shares: the handlers of the services this process
 * serves, the per-key order, the log context, and a count of commands in hand for the drain.
 */
export class ServedCommands {
  private readonly handlersByService = new Map<string, WireHandlers>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly handle: ReturnType<typeof timedCommandHandling>;
  private inHand = 0;
  private idle?: () => void;

  constructor(metrics: Metrics, log: Logger) {
    this.handle = timedCommandHandling(metrics, log);
  }

  add(service: string, handlers: WireHandlers): void {
    this.handlersByService.set(service, { ...this.handlersByService.get(service), ...handlers });
  }

  get services(): string[] {
    return [...this.handlersByService.keys()];
  }

  async receive(envelope: CommandEnvelope): Promise<CommandReply> {
    const handlers = this.handlersByService.get(envelope.service);
    // A process answers on its command port before every module has registered its service (one waits for the
    // broker): the sender is told to try again, as it would be by a process not up yet, not that the command is unknown.
    if (!handlers) return notServedYet(envelope.service);
    this.inHand++;
    try {
      const run = () =>
        withLogContext({ requestId: envelope.requestId, correlationId: envelope.correlationId }, () =>
          this.handle(handlers, envelope.command, envelope.payload, {
            service: envelope.service,
            traceparent: typeof envelope.traceparent === 'string' ? envelope.traceparent : undefined,
          }),
        );
      return await (envelope.key ? this.inOrder(envelope.key, run) : run());
    } finally {
      if (--this.inHand === 0) this.idle?.();
    }
  }

  /** Resolves once no command is in hand (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.inHand === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  /**
   * Same-key commands (one collection) run in turn in this instance, so they do not race each
   * other for the stream; two instances still can, and the decider runtime retries the loser.
   */
  private inOrder<T>(key: string, run: () => Promise<T>): Promise<T> {
    const before = this.running.get(key) ?? Promise.resolve();
    const result = before.then(run, run);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.running.set(key, settled);
    void settled.then(() => {
      if (this.running.get(key) === settled) this.running.delete(key);
    });
    return result;
  }
}
