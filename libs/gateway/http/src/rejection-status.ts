import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CommandRejectedError, type RejectionCode } from '@paygate/contracts';
import { envelope, RETRY_AFTER_SECONDS, type Envelope } from '@paygate/platform';

/** The one place a service's refusal becomes an HTTP status. */
export const STATUS_BY_REJECTION: Readonly<Record<RejectionCode, number>> = {
  invalid_request: 400,
  not_found: 404,
  duplicate_reference: 409,
  not_awaiting_confirmation: 409,
  already_exists: 409,
  insufficient_funds: 409,
  provider_unavailable: 503,
  service_unavailable: 503,
  unknown_command: 501,
  internal: 500,
};

/** A refused command in the envelope, with the status its code maps to; a 503 says when to try again. */
export function rejectionAnswer(error: CommandRejectedError): {
  status: number;
  headers: Record<string, string>;
  body: Envelope<unknown>;
} {
  const status = STATUS_BY_REJECTION[error.code] ?? 500;
  const headers: Record<string, string> = status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {};
  return { status, headers, body: envelope(status, error.message, error.details ?? {}) };
}

@Catch(CommandRejectedError)
export class RejectionFilter implements ExceptionFilter {
  catch(error: CommandRejectedError, host: ArgumentsHost): void {
    const { status, headers, body } = rejectionAnswer(error);
    void host.switchToHttp().getResponse<FastifyReply>().status(status).headers(headers).send(body);
  }
}
