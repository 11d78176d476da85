import { Inject, Injectable } from '@nestjs/common';
import { Background } from '../background';
import { hundredths } from '../validation';
import { cardApiError } from '../provider-api-error';
import { SANDBOX_CONFIG, type SandboxConfig } from '../sandbox-config';
import { CardRefundStore, type CardRefund, type NewCardRefund } from './card-refund-store';

/** A refund as the card API shows it; its notification carries the same fields under `refund_id`. */
export function cardRefundBody(refund: CardRefund): Record<string, unknown> {
  return {
    id: refund.id,
    reference: refund.reference,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    failure_code: refund.failureCode,
  };
}

function notification(refund: CardRefund): Record<string, unknown> {
  const { id, ...fields } = cardRefundBody(refund);
  return { refund_id: id, ...fields };
}

/**
 * The card provider's refunds: of a succeeded charge, in its currency, never more than is left of it; every one
 * succeeds after the sandbox latency and is notified to its notify_url.
 */
@Injectable()
export class CardRefunds {
  constructor(
    private readonly store: CardRefundStore,
    private readonly background: Background,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
  ) {}

  async refund(request: NewCardRefund): Promise<{ created: boolean; refund: CardRefund }> {
    const recorded = await this.store.record(request, (charge) => {
      if (!charge)
        throw cardApiError(
          404,
          'resource_missing',
          'No succeeded charge has this payment_reference',
          'payment_reference',
        );
      if (charge.currency !== request.currency)
        throw cardApiError(400, 'parameter_invalid', `the charge was in ${charge.currency}`, 'currency');
      const left = hundredths(charge.amount) - charge.refundedHundredths;
      if (hundredths(request.amount) > left)
        throw cardApiError(
          400,
          'amount_too_large',
          `the refund is more than is left of the charge: ${(left / 100).toFixed(2)} ${charge.currency}`,
          'amount',
        );
      return new Date(Date.now() + this.config.latencyMs);
    });
    if (recorded.created) this.background.later(this.config.latencyMs, () => this.resolve(request.reference));
    return recorded;
  }

  /** A refund whose outcome is due is settled on read, so a restart that lost its timer still answers. */
  async find(reference: string): Promise<CardRefund | undefined> {
    const refund = await this.store.find(reference);
    if (refund?.status !== 'pending' || refund.resolvesAt.getTime() > Date.now()) return refund;
    return this.store.settle(reference, 'succeeded');
  }

  private async resolve(reference: string): Promise<void> {
    const refund = await this.store.settle(reference, 'succeeded');
    if (refund)
      await this.background.callback('POST', refund.notifyUrl, notification(refund), {
        provider: 'card',
        refundId: refund.id,
      });
  }
}
