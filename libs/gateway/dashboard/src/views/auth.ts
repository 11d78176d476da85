import { html } from '@paygate/platform';
import { alert, describedBy, notice as noticeOf, page } from './layout';

/** A merchant account the email and password opened, when they opened more than one. */
export interface AccountChoice {
  merchantId: string;
  merchantName: string;
}

export function signInPage({
  csrf,
  email,
  error,
  notice,
  accounts,
}: {
  csrf: string;
  email?: string;
  error?: string;
  notice?: string;
  accounts?: AccountChoice[];
}) {
  return page(
    'Sign in',
    html`<h1>Sign in</h1>
      ${noticeOf(notice)} ${alert(error)}
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
        ${accounts ? accountChoice(accounts) : ''}
        <button type="submit">Sign in</button>
      </form>`,
  );
}

function accountChoice(accounts: AccountChoice[]) {
  return html`<label for="merchant_id">Merchant account</label>
    <select id="merchant_id" name="merchant_id" required>
      ${accounts.map(
        ({ merchantId, merchantName }) => html`<option value="${merchantId}">${merchantName} (${merchantId})</option>`,
      )}
    </select>`;
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
