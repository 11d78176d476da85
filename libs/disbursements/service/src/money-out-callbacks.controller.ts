import { PAYOUT_STREAM_PREFIX, REFUND_STREAM_PREFIX } from '@paygate/contracts';
import {
  Controller,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Put,
  ServiceUnavailableException,
} from '@nestjs/common';

import type { Logger } from '@paygate/logging';
import { LOGGER, RateLimitedAs } from '@paygate/platform';
import { DisbursementsService } from './disbursements.service';

/** The path a provider is given to report on a money-out: its stream, base64url so any reference fits a segment. */
export const moneyOutCallbackPath = (streamId: string) =>
  `/money-out-callbacks/${Buffer.from(streamId, 'utf8').toString('base64url')}`;

/**
 * Where providers report refund and payout results. A body only hints (anyone could send one), so the provider's
 * status API is asked; a path that names no money-out stream is 404.
 */
@Controller('money-out-callbacks')
@RateLimitedAs('provider')
export class MoneyOutCallbacksController {
  constructor(
    @Inject(DisbursementsService) private readonly disbursements: DisbursementsService,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /** MoMo calls back with PUT. */
  @Put(':stream')
  @HttpCode(200)
  put(@Param('stream') stream: string) {
    return this.notify(stream);
  }

  /** The card provider notifies with POST. */
  @Post(':stream')
  @HttpCode(200)
  post(@Param('stream') stream: string) {
    return this.notify(stream);
  }

  private async notify(stream: string) {
    const streamId = /^[A-Za-z0-9_-]{1,200}$/.test(stream) ? Buffer.from(stream, 'base64url').toString('utf8') : '';
    if (!streamId.startsWith(REFUND_STREAM_PREFIX) && !streamId.startsWith(PAYOUT_STREAM_PREFIX))
      throw new NotFoundException('unknown refund or payout');
    try {
      await this.disbursements.notified(streamId);
    } catch (error) {
      this.log.warn('money-out callback not processed; the provider will retry', { error });
      throw new ServiceUnavailableException('try again later');
    }
    return {};
  }
}
