import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { Background } from '../background';
import { SANDBOX_CONFIG, type SandboxConfig } from '../sandbox-config';
import { cardOutcome } from './card-input';
import { CardStore, type CheckoutSession, type NewCheckoutSession, type SessionOutcome } from './card-store';

/** The body POSTed to a session's notify_url once it closes. */
function notification(session: CheckoutSession): Record<string, unknown> {
  return {
    session_id: session.id,
    reference: session.reference,
    status: session.status,
    failure_code: session.failureCode,
    card: session.card,
  };
}

@Injectable()
export class CardCheckout {
  constructor(
    private readonly store: CardStore,
    private readonly background: Background,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
  ) {}

  open(session: NewCheckoutSession): Promise<CheckoutSession> {
    return this.store.open(session);
  }

  find(id: string): Promise<CheckoutSession | undefined> {
    return this.store.find(id);
  }

  /**
   * Charges the card once the simulated latency has passed and tells the merchant before the
   * browser moves on; undefined when the session closed or expired meanwhile.
   */
  async pay(id: string, cardNumber: string): Promise<CheckoutSession | undefined> {
    await sleep(this.config.latencyMs);
    return this.closeAndNotify(id, cardOutcome(cardNumber));
  }

  cancel(id: string): Promise<CheckoutSession | undefined> {
    return this.closeAndNotify(id, { status: 'cancelled' });
  }

  private async closeAndNotify(id: string, outcome: SessionOutcome): Promise<CheckoutSession | undefined> {
    const closed = await this.store.close(id, outcome);
    if (closed)
      await this.background.callback('POST', closed.notifyUrl, notification(closed), {
        provider: 'card',
        sessionId: id,
      });
    return closed;
  }
}
