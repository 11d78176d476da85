import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCollection } from '@paygate/contracts';
import type { MerchantAccounts } from '@paygate/merchants';
import { escapeHtml, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { signedRedirectUrl } from '@paygate/signing';
import { MERCHANTS } from './tokens';

/**
 * Where the card checkout sends the customer back: a redirect to the merchant's redirect_url
 * with the signed result (docs/api.md, Card redirect), or a hosted result page when there is none.
 */
@ApiExcludeController()
@Controller('v1/checkout/return')
export class CheckoutReturnController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(MERCHANTS) private readonly merchants: MerchantAccounts,
  ) {}

  @Get(':internal_reference')
  async returnFromCheckout(@Param('internal_reference') internalReference: string, @Res() reply: FastifyReply) {
    const found = await this.infrastructure.commands
      .send(new CurrentCollection({ internalReference }), { key: internalReference })
      .catch(() => null);
    if (!found)
      return reply
        .status(404)
        .type('text/html; charset=utf-8')
        .send(this.page('Payment not found', 'This payment link is not valid.'));
    const { record } = found;
    const keys = await this.merchants.keys(found.merchantId);
    if (found.redirectUrl && keys) {
      return reply.redirect(signedRedirectUrl(found.redirectUrl, record, keys.signingKey), 303);
    }
    return reply
      .status(200)
      .type('text/html; charset=utf-8')
      .send(this.page(`Payment ${record.transaction_status.toLowerCase()}`, record.status_message));
  }

  private page(title: string, message: string): string {
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`;
  }
}
