import { Catch, HttpException, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { UnavailableError } from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import { LOGGER, RETRY_AFTER_SECONDS } from '@paygate/platform';
import { sendPage } from './responses';
import { problemPage } from './views/layout';

const TITLES: Record<number, string> = {
  400: 'That request was not understood',
  401: 'Sign in first',
  403: 'Not allowed',
  404: 'Not found',
  413: 'That was too large',
  429: 'Too many requests',
};

/**
 * A person in a browser gets a page, not the API's JSON envelope: a refusal (a 4xx, the rate
 * limit's 429 included, with its headers) or a dependency that did not answer (503 with
 * Retry-After, logged as the API logs it). Anything else goes on to the gateway's own handler.
 */
@Catch(HttpException, UnavailableError)
export class DashboardErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly log: Logger) {}

  catch(error: HttpException | UnavailableError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (error instanceof UnavailableError) {
      this.log.warn('dashboard page answered 503: a dependency did not answer', { error });
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      const message = `Part of Paygate did not answer in time (${error.message}). Nothing was changed; try again in a moment.`;
      return sendPage(reply, 503, problemPage('Try again in a moment', message));
    }
    const status = error.getStatus();
    const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'That request was refused');
    const message =
      status === 429
        ? `Too many requests from your address. Try again in ${String(reply.getHeader('retry-after') ?? 'a few')} seconds.`
        : status >= 500
          ? 'Paygate could not answer this page. Try again in a moment.'
          : error.message;
    sendPage(reply, status, problemPage(title, message));
  }
}
