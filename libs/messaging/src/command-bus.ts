/**
 * Request-reply from the gateway to the service that owns a command. A handler rejects a
 * command by throwing CommandRejectedError; its code, status and data travel back to the
 * sender intact. Any other error reaches the sender as `internal` without its message, so
 * internals never leak into responses.
 */
export type CommandHandler = (payload: Record<string, unknown>) => Promise<unknown>;

export interface SendOptions {
  /** Commands with the same key are handled in order (Kafka: same partition). */
  key?: string;
  timeoutMs?: number;
}

export interface CommandBus {
  send<Reply = unknown>(service: string, command: string, payload: Record<string, unknown>, options?: SendOptions): Promise<Reply>;
  /** Serves `service`'s commands from this process. */
  serve(service: string, handlers: Record<string, CommandHandler>): Promise<void>;
  close(): Promise<void>;
}

export interface CommandFailure {
  code: string;
  message: string;
  /** HTTP-like status the gateway answers with. */
  status: number;
  data?: Record<string, unknown>;
}

export type CommandReply = { ok: true; value: unknown } | { ok: false; failure: CommandFailure };

export class CommandRejectedError extends Error {
  override readonly name = 'CommandRejectedError';
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }

  static from(failure: CommandFailure): CommandRejectedError {
    return new CommandRejectedError(failure.code, failure.message, failure.status, failure.data);
  }
}

export class CommandTimeoutError extends Error {
  override readonly name = 'CommandTimeoutError';
  constructor(service: string, command: string, timeoutMs: number) {
    super(`no reply from ${service} to ${command} within ${timeoutMs} ms`);
  }
}

export class UnknownCommandError extends Error {
  override readonly name = 'UnknownCommandError';
  constructor(service: string, command: string) {
    super(`${service} does not handle ${command}`);
  }
}

/** Runs a handler and turns its outcome into a reply that can cross a process boundary. */
export async function handleToReply(handler: CommandHandler | undefined, payload: Record<string, unknown>): Promise<CommandReply> {
  if (!handler) return { ok: false, failure: { code: 'unknown_command', message: 'unknown command', status: 501 } };
  try {
    return { ok: true, value: (await handler(payload)) ?? null };
  } catch (error) {
    if (error instanceof CommandRejectedError) {
      return { ok: false, failure: { code: error.code, message: error.message, status: error.status, data: error.data } };
    }
    return { ok: false, failure: { code: 'internal', message: 'the service could not handle the command', status: 500 } };
  }
}

export function replyValue<Reply>(reply: CommandReply): Reply {
  if (reply.ok) return reply.value as Reply;
  throw CommandRejectedError.from(reply.failure);
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
