import type { CollectionDetails, WalletBalance } from '@paygate/contracts';
import type { DashboardUser } from '@paygate/merchants';
import { toMajorUnits } from '@paygate/money';
import { html, type Html } from '@paygate/platform';

/** Every page: labelled landmarks, one stylesheet from the gateway, no script or style inline (the CSP forbids them). */
function page(title: string, main: Html, signedIn?: { user: DashboardUser; csrfToken: string }): string {
  const nav =
    signedIn &&
    html`<header>
      <p class="brand">Paygate</p>
      <nav aria-label="Dashboard"><a href="/dashboard/overview">Overview</a></nav>
      <form method="post" action="/dashboard/sign-out">
        <input type="hidden" name="_csrf" value="${signedIn.csrfToken}" />
        <span class="who">${signedIn.user.email} (${signedIn.user.role})</span>
        <button type="submit">Sign out</button>
      </form>
    </header>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Paygate dashboard</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
      </head>
      <body>
        ${nav}
        <main>${main}</main>
      </body>
    </html> `.text;
}

const alert = (message: string | undefined) =>
  message && html`<p class="error" role="alert" id="form-error">${message}</p>`;
const describedBy = (message: string | undefined) => (message ? html` aria-describedby="form-error"` : '');

export function signInPage({
  csrf,
  email,
  error,
  notice,
}: {
  csrf: string;
  email?: string;
  error?: string;
  notice?: string;
}) {
  return page(
    'Sign in',
    html`<h1>Sign in</h1>
      ${notice && html`<p class="notice" role="status">${notice}</p>`} ${alert(error)}
      <form method="post" action="/dashboard/sign-in" class="stack">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${email ?? ''}"
          ${describedBy(error)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required${describedBy(error)}
        />
        <button type="submit">Sign in</button>
      </form>`,
  );
}

export function invitePage({ csrf, email, error }: { csrf: string; email: string; error?: string }) {
  return page(
    'Set your password',
    html`<h1>Set your password</h1>
      <p>
        You were invited to the Paygate dashboard as <strong>${email}</strong>. Choose a password of at least 12
        characters.
      </p>
      ${alert(error)}
      <form method="post" class="stack">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="12"
          maxlength="256"
          ${describedBy(error)}
        />
        <button type="submit">Set password</button>
      </form>`,
  );
}

export const inviteGonePage = () =>
  page(
    'Invite link not valid',
    html`<h1>This invite link cannot be used</h1>
      <p>
        It was used already, it is older than 24 hours, or it was never given. Ask whoever invited you for a new one.
      </p>
      <p><a href="/dashboard/sign-in">Sign in</a></p>`,
  );

const money = (minor: number, currency: string) =>
  `${currency} ${toMajorUnits(minor, currency).toLocaleString('en', { maximumFractionDigits: 3 })}`;

export function overviewPage({
  signedIn,
  balances,
  collections,
}: {
  signedIn: { user: DashboardUser; csrfToken: string };
  balances: WalletBalance[];
  collections: CollectionDetails[];
}) {
  return page(
    'Overview',
    html`<h1>Overview</h1>
      <section aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">Wallet</h2>
        ${
          balances.length === 0
            ? html`<p>No money has reached the wallet yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th scope="col">Currency</th>
                    <th scope="col">Balance</th>
                    <th scope="col">Available</th>
                  </tr>
                </thead>
                <tbody>
                  ${balances.map(
                    (wallet) =>
                      html`<tr>
                        <td>${wallet.currency}</td>
                        <td>${money(wallet.balance, wallet.currency)}</td>
                        <td>${money(wallet.available, wallet.currency)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Latest collections</h2>
        ${
          collections.length === 0
            ? html`<p>No collections yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th scope="col">Created</th>
                    <th scope="col">Merchant reference</th>
                    <th scope="col">Internal reference</th>
                    <th scope="col">Method</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  ${collections.map(
                    (record) =>
                      html`<tr>
                        <td>${record.created_at.replace('T', ' ').slice(0, 19)}</td>
                        <td>${record.merchant_reference}</td>
                        <td>${record.internal_reference}</td>
                        <td>${record.transaction_method}</td>
                        <td>${record.request_currency} ${record.request_amount.toLocaleString('en')}</td>
                        <td>
                          <span class="status status-${record.transaction_status.toLowerCase()}"
                            >${record.transaction_status}</span
                          >
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>`,
    signedIn,
  );
}
