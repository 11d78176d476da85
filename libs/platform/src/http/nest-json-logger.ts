import type { LoggerService } from '@nestjs/common';
import type { Logger } from '@paygate/logging';

/** Routes NestJS's own messages into the JSON log. */
export class NestJsonLogger implements LoggerService {
  constructor(private readonly target: Logger) {}
  log(message: unknown, context?: string) {
    this.target.debug(String(message), { context });
  }
  error(message: unknown, trace?: string, context?: string) {
    this.target.error(String(message), { context, trace });
  }
  warn(message: unknown, context?: string) {
    this.target.warn(String(message), { context });
  }
}
