import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/** An error answer in the simulated provider's own shape; it leaves as is, never as our envelope. */
export class ProviderApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(`provider API answered ${status}`);
  }
}

/** MoMo's error body: `{code, message}`. */
export function momoError(status: number, code: string, message: string): ProviderApiError {
  return new ProviderApiError(status, { code, message });
}

/** The card API's error body: `{error: {code, param?, message}}`. */
export function cardApiError(status: number, code: string, message: string, param?: string): ProviderApiError {
  return new ProviderApiError(status, { error: { code, param, message } });
}

/** The biller API's error body: `{error: {code, message, field?}}`. */
export function billerApiError(status: number, code: string, message: string, field?: string): ProviderApiError {
  return new ProviderApiError(status, { error: { code, message, ...(field && { field }) } });
}

@Catch(ProviderApiError)
export class ProviderApiErrorFilter implements ExceptionFilter {
  catch(error: ProviderApiError, host: ArgumentsHost): void {
    void host.switchToHttp().getResponse<FastifyReply>().status(error.status).send(error.body);
  }
}
