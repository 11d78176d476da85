import type { DashboardUser } from '@paygate/merchants';
import { html, type Html } from '@paygate/platform';

/** Who is signed in, and the token their forms carry. */
export interface SignedIn {
  user: DashboardUser;
  csrfToken: string;
}

/** What the navigation shows: the signed-in user, the page they are on, and whether sandbox tools exist. */
export interface Chrome {
  signedIn: SignedIn;
  current: string;
  sandbox: boolean;
}

const SECTIONS: Array<{ path: string; label: string; sandboxOnly?: boolean }> = [
  { path: '/dashboard/overview', label: 'Overview' },
  { path: '/dashboard/collections', label: 'Collections' },
  { path: '/dashboard/callbacks', label: 'Callbacks' },
  { path: '/dashboard/payments', label: 'Service payments' },
  { path: '/dashboard/wallet', label: 'Wallet' },
  { path: '/dashboard/payouts', label: 'Payouts' },
  { path: '/dashboard/settings', label: 'Settings' },
  { path: '/dashboard/sandbox', label: 'Sandbox', sandboxOnly: true },
];

/** The hidden field every signed-in form posts: the session's CSRF token. */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}" />`;

function header({ signedIn, current, sandbox }: Chrome): Html {
  return html`<header>
    <p class="brand">Paygate</p>
    <nav aria-label="Dashboard">
      ${SECTIONS.filter((section) => sandbox || !section.sandboxOnly).map(
        ({ path, label }) => html`<a href="${path}" ${current === path ? html` aria-current="page"` : ''}>${label}</a>`,
      )}
    </nav>
    <form method="post" action="/dashboard/sign-out">
      ${csrfField(signedIn.csrfToken)}
      <span class="who">${signedIn.user.email} (${signedIn.user.role})</span>
      <button type="submit">Sign out</button>
    </form>
  </header>`;
}

/**
 * Every page: labelled landmarks, the gateway's one stylesheet and one script, nothing inline (the
 * CSP forbids it). `refreshSeconds` reloads the page while something it shows is about to change.
 */
export function page(title: string, main: Html, chrome?: Chrome, refreshSeconds?: number): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${refreshSeconds !== undefined && html`<meta http-equiv="refresh" content="${refreshSeconds}" />`}
        <title>${title} · Paygate dashboard</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <script src="/dashboard/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        ${chrome && header(chrome)}
        <main id="main">${main}</main>
      </body>
    </html> `.text;
}

export const alert = (message: string | undefined) =>
  message && html`<p class="error" role="alert" id="form-error">${message}</p>`;
export const notice = (message: string | undefined) => message && html`<p class="notice" role="status">${message}</p>`;
export const describedBy = (message: string | undefined) => (message ? html` aria-describedby="form-error"` : '');

/** A page that says what went wrong and where to go: not found, not allowed, a bad filter. */
export const problemPage = (title: string, message: string, chrome?: Chrome) =>
  page(
    title,
    html`<h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/dashboard/overview">Back to the overview</a></p>`,
    chrome,
  );

/** The problems more than one page answers with. */
export const PROBLEMS = {
  pageLink: (chrome: Chrome) =>
    problemPage(
      'Page link not valid',
      'This page link is not one the dashboard gave; start from the first page.',
      chrome,
    ),
  merchantGone: (chrome: Chrome) => problemPage('Merchant not found', 'This merchant no longer exists.', chrome),
  noSandbox: (chrome: Chrome) => problemPage('No sandbox here', 'This Paygate talks to real providers.', chrome),
};
