import {
  Body,
  Controller,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Put,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { ConnectorRegistry } from '@paygate/connectors';
import { LOGGER, RateLimitedAs } from '@paygate/platform';
import type { Logger } from '@paygate/logging';
import { CollectionsService } from './collections.service';
import { CONNECTORS } from './tokens';

const INTERNAL_REFERENCE = /^PG[0-9A-Z]{24}$/;

/**
 * Notification URLs issued before they named the provider_code named the protocol. A provider
 * may still call one; the status API is asked without a hint, which the service rarely needs.
 */
const LEGACY_PATHS = new Set(['momo', 'card']);

/** Where providers report results. Bodies only hint; the service asks the provider's status API. */
@Controller('provider-callbacks')
@RateLimitedAs('provider')
export class ProviderCallbacksController {
  constructor(
    @Inject(CollectionsService) private readonly collections: CollectionsService,
    @Inject(CONNECTORS) private readonly connectors: () => ConnectorRegistry,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /** MoMo calls back with PUT. */
  @Put(':providerCode/:internalReference')
  @HttpCode(200)
  put(
    @Param('providerCode') providerCode: string,
    @Param('internalReference') internalReference: string,
    @Body() body: unknown,
  ) {
    return this.notify(providerCode, internalReference, body);
  }

  /** The card provider notifies with POST. */
  @Post(':providerCode/:internalReference')
  @HttpCode(200)
  post(
    @Param('providerCode') providerCode: string,
    @Param('internalReference') internalReference: string,
    @Body() body: unknown,
  ) {
    return this.notify(providerCode, internalReference, body);
  }

  private async notify(providerCode: string, internalReference: string, body: unknown) {
    if (!INTERNAL_REFERENCE.test(internalReference)) throw new NotFoundException('unknown transaction');
    const registry = this.connectors();
    const collect = registry.has(providerCode) ? registry.get(providerCode).collect : undefined;
    if (!collect && !LEGACY_PATHS.has(providerCode)) throw new NotFoundException('unknown provider');
    const hint = collect?.verifyNotification(body) ?? undefined;
    try {
      await this.collections.refreshFromProvider(internalReference, hint);
    } catch (error) {
      this.log.warn('provider callback not processed; the provider will retry', {
        internal_reference: internalReference,
        error,
      });
      throw new ServiceUnavailableException('try again later');
    }
    return {};
  }
}
