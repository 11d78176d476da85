import { UnavailableError } from '@paygate/contracts';
import { currentLogContext } from '@paygate/logging';
import { currentTraceparent } from '@paygate/tracing';
import { CommandTimeoutError, type SendOptions } from '../command-bus';
import type { CommandEnvelope } from './served-commands';

/**
 * The sending side every remote transport shares: what a command carries besides its payload
 * (the sender's log context and span, its order key) and what a failed send means to the caller.
 */
export function outgoingCommand(
  service: string,
  command: string,
  payload: unknown,
  options: SendOptions,
): CommandEnvelope {
  const context = currentLogContext();
  return {
    service,
    command,
    payload,
    requestId: context?.requestId,
    correlationId: context?.correlationId,
    key: options.key,
    traceparent: currentTraceparent(),
  };
}

/**
 * A send that got no reply: past its deadline it timed out; otherwise the connection failed,
 * maybe with the command on it, so whether it ran is unknown and the merchant's retry is
 * answered from what was done.
 */
export function sendFailure(error: unknown, timedOut: boolean, command: CommandEnvelope, timeoutMs: number): Error {
  if (error instanceof UnavailableError) return error;
  if (timedOut) return new CommandTimeoutError(command.service, command.command, timeoutMs);
  return new UnavailableError(`the ${command.service} service is not reachable`, { cause: error });
}
