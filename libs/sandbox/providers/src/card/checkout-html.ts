import { escapeHtml } from '@paygate/platform';
import type { CheckoutSession, SessionStatus } from './card-store';

/** "25000" → "25,000"; decimals kept as given. */
export function formatAmount(amount: string): string {
  const [whole, fraction] = amount.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d1f23; margin: 0; }
  main { max-width: 26rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: .75rem; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.25rem; margin: 0 0 1rem; }
  .amount { font-size: 2rem; font-weight: 700; margin: 0; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 1rem 0 1.5rem; }
  dt { color: #5a5f6a; }
  dd { margin: 0; overflow-wrap: anywhere; }
  label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
  input { box-sizing: border-box; width: 100%; font-size: 1rem; padding: .6rem; border: 1px solid #8a8f99; border-radius: .375rem; }
  .row { display: flex; gap: 1rem; }
  .row > div { flex: 1; }
  button { width: 100%; font-size: 1rem; padding: .75rem; margin-top: 1.25rem; border-radius: .375rem; border: 0; cursor: pointer; }
  #pay { background: #1a56db; color: #fff; font-weight: 700; }
  #cancel { background: transparent; color: #1a56db; text-decoration: underline; margin-top: .5rem; }
  :focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  .error { background: #fdecec; color: #8a1c1c; border: 1px solid #f5b5b5; padding: .75rem; border-radius: .375rem; }
  .error p { margin: 0 0 .5rem; }
  .error ul { margin: 0; padding-left: 1.25rem; }
  .note { color: #5a5f6a; font-size: .85rem; margin-top: 1.5rem; }
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The payment form; `errors` come from a rejected submission, whose card number is never shown again. */
export function checkoutPage(session: CheckoutSession, errors: string[] = [], expiry = ''): string {
  const errorBox =
    errors.length > 0
      ? `<div class="error" role="alert" id="form-errors"><p>Please correct the following:</p><ul>${errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul></div>`
      : '';
  const described = errors.length > 0 ? ' aria-describedby="form-errors"' : '';
  return page(
    'Pay by card',
    `<h1>Pay by card</h1>
<p class="amount">${escapeHtml(session.currency)} ${escapeHtml(formatAmount(session.amount))}</p>
<dl>
  <dt>Reference</dt><dd>${escapeHtml(session.reference)}</dd>
  ${session.description ? `<dt>Description</dt><dd>${escapeHtml(session.description)}</dd>` : ''}
</dl>
${errorBox}
<form method="post" novalidate>
  <label for="card_number">Card number</label>
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required${described}>
  <div class="row">
    <div>
      <label for="expiry">Expiry (MM/YY)</label>
      <input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" value="${escapeHtml(expiry)}" required>
    </div>
    <div>
      <label for="cvv">CVV</label>
      <input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required>
    </div>
  </div>
  <button type="submit" id="pay">Pay</button>
</form>
<!-- Relative, so the page also works behind a public base URL with a path prefix. -->
<form method="post" action="${escapeHtml(session.id)}/cancel">
  <button type="submit" id="cancel">Cancel</button>
</form>
<p class="note">Sandbox checkout: no real card is charged.</p>`,
  );
}

const CLOSED: Record<Exclude<SessionStatus, 'open'>, string> = {
  succeeded: 'This payment has already been made.',
  failed: 'This payment has already been attempted and failed.',
  cancelled: 'This payment was cancelled.',
  expired: 'This payment link has expired.',
};

export function closedPage(status: Exclude<SessionStatus, 'open'>, returnUrl: string): string {
  return page(
    'Payment no longer open',
    `<h1>Payment no longer open</h1>
<p>${CLOSED[status]}</p>
<p><a href="${escapeHtml(returnUrl)}">Return to the merchant</a></p>`,
  );
}

export function notFoundPage(): string {
  return page(
    'Payment not found',
    '<h1>Payment not found</h1>\n<p>There is no payment at this address. Check the link you were given.</p>',
  );
}
