import {
  CommandRejectedError,
  UnavailableError,
  type ContractMessage,
  type Rejection,
  type ServiceContract,
} from '@paygate/contracts';
import { WrongExpectedRevisionError } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import { LATENCY_BUCKETS, secondsSince, type Metrics } from '@paygate/metrics';
import { inSpan } from '@paygate/tracing';

/**
 * Request-reply from the gateway to the service that owns a message, typed by the service's
 * contract (libs/contracts). A handler refuses by throwing CommandRejectedError; its code,
 * message and details travel back to the sender intact. Any other error reaches the sender as
 * `internal` without its message, so internals never leak into responses.
 */
export interface SendOptions {
  /** Messages with the same key are handled in order (Kafka: same partition). */
  key?: string;
  timeoutMs?: number;
}

/** Runs one message of a served contract (a service hands it to @nestjs/cqrs, which finds its handler). */
export type ExecuteMessage = (message: ContractMessage) => Promise<unknown>;

export interface CommandBus {
  /** To the service whose contract lists the message's class; on the wire, its name and payload. */
  send<Result>(message: ContractMessage<Result>, options?: SendOptions): Promise<Result>;
  /** Serves every message of `contract` from this process: each arrives as its contract class. */
  serve(contract: ServiceContract, execute: ExecuteMessage): Promise<void>;
  /**
   * Stops taking commands for the services this process serves, first thing in a shutdown:
   * those in hand finish and answer, new ones go to the other instances; sending still works.
   */
  stopServing(): Promise<void>;
  /** Stops serving, and sending. */
  close(): Promise<void>;
}

/**
 * Handlers once the contract's types are left behind at the wire: a payload arrives as JSON
 * and is handed to the handler its name selects.
 */
export type WireHandler = (payload: never) => Promise<unknown>;
export type WireHandlers = Readonly<Record<string, WireHandler>>;

/** A contract's messages by wire name, each turning its payload back into the contract's class. */
export function wireHandlers(contract: ServiceContract, execute: ExecuteMessage): WireHandlers {
  return Object.fromEntries(
    Object.entries(contract.messages).map(([name, type]) => [name, (payload: never) => execute(new type(payload))]),
  );
}

export type CommandReply = { ok: true; value: unknown } | { ok: false; rejection: Rejection };

/** The owning service did not answer in time: it may be down, starting or overloaded. */
export class CommandTimeoutError extends UnavailableError {
  override readonly name = 'CommandTimeoutError';
  constructor(service: string, command: string, timeoutMs: number) {
    super(`no reply from ${service} to ${command} within ${timeoutMs} ms`);
  }
}

export class UnknownServiceError extends Error {
  override readonly name = 'UnknownServiceError';
  constructor(service: string) {
    super(`no process here serves ${service}`);
  }
}

/**
 * Runs a handler and turns its outcome into a reply that can cross a process boundary; an
 * unexpected error goes to `onFailure` (the log), never into the reply.
 */
export async function handleToReply(
  handler: WireHandler | undefined,
  payload: unknown,
  onFailure?: (error: unknown) => void,
): Promise<CommandReply> {
  if (!handler) return { ok: false, rejection: { code: 'unknown_command', message: 'unknown command' } };
  try {
    return { ok: true, value: (await handler(payload as never)) ?? null };
  } catch (error) {
    if (error instanceof CommandRejectedError) return { ok: false, rejection: error.toRejection() };
    onFailure?.(error);
    // A stream other writers kept moving until the runtime's attempts ran out: busy, not broken; the same command may
    // succeed in a moment.
    if (error instanceof UnavailableError || error instanceof WrongExpectedRevisionError)
      return {
        ok: false,
        rejection: { code: 'service_unavailable', message: 'the service cannot reach what it needs; try again later' },
      };
    return { ok: false, rejection: { code: 'internal', message: 'the service could not handle the command' } };
  }
}

/** The RPC span of a command, on both sides: `<service>/<message>` (OpenTelemetry's RPC naming). */
export function commandSpanName(service: string, command: string): string {
  return `${service}/${command}`;
}

export const commandSpanAttributes = (service: string, command: string) => ({
  'rpc.system': 'paygate',
  'rpc.service': service,
  'rpc.method': command,
});

/** Who a command is for and the sender's span (W3C traceparent), as the envelope carries them. */
export interface CommandOrigin {
  service: string;
  traceparent?: string;
}

/**
 * handleToReply, timed into `paygate_command_duration_seconds{command, outcome}` and logged (in
 * the sender's log context), in a server span continuing the sender's trace: outcome is `ok`,
 * the rejection code, `internal` or `unknown_command` (whose name is not a label, so a stray
 * message cannot add series).
 */
export function timedCommandHandling(
  metrics: Metrics,
  log: Logger,
): (handlers: WireHandlers, command: string, payload: unknown, origin: CommandOrigin) => Promise<CommandReply> {
  const handled = metrics.histogram({
    name: 'paygate_command_duration_seconds',
    help: 'Commands and queries handled by this process, by message and outcome (ok, a rejection code, internal, unknown_command).',
    labelNames: ['command', 'outcome'],
    buckets: LATENCY_BUCKETS,
  });
  return async (handlers, command, payload, origin) => {
    const started = performance.now();
    const handler = Object.hasOwn(handlers, command) ? handlers[command] : undefined;
    const name = handler ? command : 'unknown';
    const reply = await inSpan(
      commandSpanName(origin.service, name),
      { role: 'server', parent: origin.traceparent, attributes: commandSpanAttributes(origin.service, name) },
      () => handleToReply(handler, payload, (error) => log.error('command failed', { command, error })),
    );
    const seconds = secondsSince(started);
    const labels = { command: handler ? command : 'unknown', outcome: reply.ok ? 'ok' : reply.rejection.code };
    handled.observe(labels, seconds);
    log.info('command handled', { ...labels, duration_ms: Math.round(seconds * 1000) });
    return reply;
  };
}

export function replyValue(reply: CommandReply): unknown {
  if (reply.ok) return reply.value;
  throw CommandRejectedError.from(reply.rejection);
}
