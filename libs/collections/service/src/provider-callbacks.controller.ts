import { Body, Controller, HttpCode, Inject, NotFoundException, Param, Post, Put, ServiceUnavailableException } from '@nestjs/common';
import { LOGGER, type Logger } from '@paygate/platform';
import { CollectionsService } from './collections.service';
import { parseCardNotification, parseMobileMoneyCallback } from './providers/provider-connectors';
import { COLLECTIONS_SERVICE } from './tokens';

const INTERNAL_REFERENCE = /^PG[0-9A-Z]{24}$/;

/** Where providers report results. Bodies only hint; the service asks the provider's status API. */
@Controller('provider-callbacks')
export class ProviderCallbacksController {
  constructor(
    @Inject(COLLECTIONS_SERVICE) private readonly collections: CollectionsService,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  @Put('momo/:internalReference')
  @Post('momo/:internalReference')
  @HttpCode(200)
  async mobileMoney(@Param('internalReference') internalReference: string, @Body() body: unknown) {
    await this.refresh(internalReference, parseMobileMoneyCallback(body)?.referenceId);
    return {};
  }

  @Post('card/:internalReference')
  @HttpCode(200)
  async card(@Param('internalReference') internalReference: string, @Body() body: unknown) {
    await this.refresh(internalReference, parseCardNotification(body)?.sessionId);
    return {};
  }

  private async refresh(internalReference: string, hint: string | undefined): Promise<void> {
    if (!INTERNAL_REFERENCE.test(internalReference)) throw new NotFoundException('unknown transaction');
    try {
      await this.collections.refreshFromProvider(internalReference, hint);
    } catch (error) {
      this.log.warn('provider callback not processed; the provider will retry', { internal_reference: internalReference, error });
      throw new ServiceUnavailableException('try again later');
    }
  }
}
