import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { UnavailableError } from '@paygate/contracts';
import { envelope, RETRY_AFTER_SECONDS } from '../envelope';
import type { Logger } from '@paygate/logging';

/**
 * Every error leaves as an envelope; a dependency that did not answer is a 503 with Retry-After;
 * anything unexpected is logged and answered without details.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  constructor(private readonly log: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const [status, message, data] = this.describe(error);
    if (error instanceof UnavailableError) {
      this.log.warn('request answered 503: a dependency did not answer', { error });
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    } else if (status >= 500) this.log.error('request failed', { error });
    void reply.status(status).send(envelope(status, message, data));
  }

  private describe(error: unknown): [number, string, Record<string, unknown>] {
    if (error instanceof HttpException) {
      const response = error.getResponse();
      if (typeof response === 'string') return [error.getStatus(), response, {}];
      // An exception may carry envelope data, e.g. `errors` of a validation failure.
      const { message, data } = response as { message?: unknown; data?: unknown };
      const envelopeData =
        typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
      return [
        error.getStatus(),
        Array.isArray(message) ? message.join('; ') : String(message ?? error.message),
        envelopeData,
      ];
    }
    // Fastify's own client errors (body parsing, content type, size) carry a 4xx statusCode.
    const statusCode = (error as { statusCode?: unknown })?.statusCode;
    if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
      return [statusCode, (error as Error).message, {}];
    }
    // Says which kind of dependency, never its address: the message reaches merchants.
    if (error instanceof UnavailableError)
      return [503, `temporarily unavailable: ${error.message}; try again shortly`, {}];
    return [500, 'internal error', {}];
  }
}
