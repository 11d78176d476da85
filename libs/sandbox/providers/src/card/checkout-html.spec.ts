/**
 * The checkout pages a customer's browser shows: the amount as people read it, and whatever the
 * merchant sent (reference, description, return URL) shown as text, never run as markup.
 */
import type { CheckoutSession } from './card-store';
import { checkoutPage, closedPage, formatAmount } from './checkout-html';

const session: CheckoutSession = {
  id: 'cs_0123456789abcdef01234567',
  reference: 'order-1001',
  amount: '1250000',
  currency: 'UGX',
  notifyUrl: 'https://shop.example.com/notify',
  returnUrl: 'https://shop.example.com/paid',
  expiresAt: new Date('2031-06-15T12:00:00Z'),
  status: 'open',
};

describe('the checkout pages', () => {
  it.each([
    ['25000', '25,000'],
    ['1250000', '1,250,000'],
    ['999', '999'],
    ['1234.50', '1,234.50'],
  ])('show the amount %s as %s', (amount, shown) => {
    expect(formatAmount(amount)).toBe(shown);
  });

  it('show the amount, reference and description of the session', () => {
    const page = checkoutPage({ ...session, description: 'Two books' });
    expect(page).toContain('UGX 1,250,000');
    expect(page).toContain('<dd>order-1001</dd>');
    expect(page).toContain('<dd>Two books</dd>');
  });

  it('show what the merchant sent as text, not markup', () => {
    const page = checkoutPage({ ...session, reference: '<b>ref</b>', description: '<script>alert("x")</script>' });
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<b>');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    const closed = closedPage('expired', 'https://shop.example.com/paid?a=1&b="2"');
    expect(closed).toContain('href="https://shop.example.com/paid?a=1&amp;b=&quot;2&quot;"');
  });

  it('list the errors of a refused submission, tied to the card number field', () => {
    const page = checkoutPage(session, ['Enter a valid card number.'], '12/31');
    expect(page).toContain('<li>Enter a valid card number.</li>');
    expect(page).toContain('aria-describedby="form-errors"');
    expect(page).toContain('value="12/31"');
  });

  it.each([
    ['succeeded', 'This payment has already been made.'],
    ['failed', 'This payment has already been attempted and failed.'],
    ['cancelled', 'This payment was cancelled.'],
    ['expired', 'This payment link has expired.'],
  ] as const)('say why a %s session is no longer open, with the way back to the merchant', (status, reason) => {
    const page = closedPage(status, session.returnUrl);
    expect(page).toContain(reason);
    expect(page).toContain('<a href="https://shop.example.com/paid">Return to the merchant</a>');
  });
});
