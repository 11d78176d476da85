import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { readCardForm } from './card-input';
import { CardCheckout } from './card-checkout';
import type { CheckoutSession } from './card-store';
import { checkoutPage, closedPage, notFoundPage } from './checkout-html';

// The page needs nothing but its inline style, and a payment form must not be framed by another site.
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

function sendHtml(reply: FastifyReply, status: number, html: string): void {
  void reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .send(html);
}

/** The hosted checkout a customer's browser is sent to: plain HTML forms, no script needed. */
@Controller('sandbox/card/checkout')
export class CheckoutPageController {
  constructor(private readonly checkout: CardCheckout) {}

  @Get(':id')
  async show(@Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.openSession(id, reply);
    if (session) sendHtml(reply, 200, checkoutPage(session));
  }

  @Post(':id')
  async pay(@Param('id') id: string, @Body() body: unknown, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.openSession(id, reply);
    if (!session) return;
    const form = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const card = readCardForm(form);
    if ('errors' in card) {
      // Only a well-formed expiry is echoed back, so nothing typed in the wrong field is shown.
      const expiry =
        typeof form.expiry === 'string' && /^\d{2}\/\d{2}$/.test(form.expiry.trim()) ? form.expiry.trim() : '';
      sendHtml(reply, 400, checkoutPage(session, card.errors, expiry));
      return;
    }
    await this.finish(id, await this.checkout.pay(id, card.number), reply);
  }

  @Post(':id/cancel')
  async cancel(@Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    if (await this.openSession(id, reply)) await this.finish(id, await this.checkout.cancel(id), reply);
  }

  /** The session when it is open; otherwise answers the 404 or 410 page itself. */
  private async openSession(id: string, reply: FastifyReply): Promise<CheckoutSession | undefined> {
    const session = await this.checkout.find(id);
    if (session?.status === 'open') return session;
    if (session) sendHtml(reply, 410, closedPage(session.status, session.returnUrl));
    else sendHtml(reply, 404, notFoundPage());
    return undefined;
  }

  private async finish(id: string, closed: CheckoutSession | undefined, reply: FastifyReply): Promise<void> {
    if (closed) {
      void reply.redirect(closed.returnUrl, 303);
      return;
    }
    // Another request closed it, or it expired, while this one waited; a session only looks
    // open here when the clock stepped back, and it was past its expiry for the store.
    const session = (await this.checkout.find(id))!;
    sendHtml(reply, 410, closedPage(session.status === 'open' ? 'expired' : session.status, session.returnUrl));
  }
}
