import { html } from '@paygate/platform';
import { alert, describedBy, notice as noticeOf, page } from './layout';

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
