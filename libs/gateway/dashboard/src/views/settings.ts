import type { TestCallbackResult } from '@paygate/contracts';
import {
  ACTIVITY_ACTIONS,
  DASHBOARD_ROLES,
  type ActivityEntry,
  type DashboardUser,
  type Merchant,
} from '@paygate/merchants';
import { html, type Html } from '@paygate/platform';
import { instant } from './format';
import { alert, csrfField, notice, page, type Chrome } from './layout';

export const CALLBACK_URL_FIELDS = [
  { name: 'collection_callback_url', label: 'Collection callback URL' },
  { name: 'service_payments_callback_url', label: 'Service payments callback URL' },
  { name: 'payouts_callback_url', label: 'Payouts callback URL' },
] as const;
export type CallbackUrlField = (typeof CALLBACK_URL_FIELDS)[number]['name'];

/** What a settings change says once the page is shown again after it (`?done=`). */
export const SETTINGS_DONE: Readonly<Record<string, string>> = {
  'callback-urls': 'Callback URLs saved.',
  role: 'Role changed. It applies from their next page on.',
  removed: 'User removed and signed out.',
};

/** A secret shown once, right after it was made: in a read-only field with a Copy button (dashboard.js). */
export interface ShownOnce {
  id: string;
  label: string;
  value: string;
}

export interface SettingsView {
  merchant: Merchant;
  users: DashboardUser[];
  /** The merchant's latest dashboard actions, newest first. */
  activity: ActivityEntry[];
  /** Callback URLs and keys, the test callback. */
  canConfigure: boolean;
  canManageUsers: boolean;
  shownOnce?: ShownOnce[];
  /** The callback URL form as posted, with the address guard's answer per field. */
  callbackForm?: { values: Record<CallbackUrlField, string>; errors: Partial<Record<CallbackUrlField, string>> };
  testCallback?: TestCallbackResult;
  /** A one-time link just made: a new user's invite, or a reset password's. */
  invited?: { email: string; url: string; expiresAt: string; reason: 'invite' | 'reset' };
  notice?: string;
  error?: string;
}

const form = (action: string, csrf: string, body: Html, className = '') =>
  html`<form method="post" action="/dashboard/settings/${action}" ${className && html` class="${className}"`}>
    ${csrfField(csrf)} ${body}
  </form>`;

function shownOnce(secrets: ShownOnce[]): Html {
  return html`<section class="once" aria-labelledby="once-heading">
    <h2 id="once-heading">Copy it now</h2>
    <p>This is the only time Paygate shows it. Store it where your server reads its secrets.</p>
    ${secrets.map(
      (secret) =>
        html`<div class="field">
          <label for="${secret.id}">${secret.label}</label>
          <div class="copy-row">
            <input id="${secret.id}" type="text" readonly value="${secret.value}" class="mono" />
            <button type="button" data-copy="${secret.id}" hidden>Copy</button>
          </div>
        </div>`,
    )}
  </section>`;
}

function callbackUrls(view: SettingsView, csrf: string): Html {
  const stored: Record<CallbackUrlField, string | null> = {
    collection_callback_url: view.merchant.collectionCallbackUrl,
    service_payments_callback_url: view.merchant.servicePaymentsCallbackUrl,
    payouts_callback_url: view.merchant.payoutsCallbackUrl,
  };
  if (!view.canConfigure) {
    return html`<dl class="record">
      ${CALLBACK_URL_FIELDS.map(
        ({ name, label }) =>
          html`<div>
            <dt>${label}</dt>
            <dd class="mono">${stored[name] ?? 'not set'}</dd>
          </div>`,
      )}
    </dl>`;
  }
  const fields = CALLBACK_URL_FIELDS.map(({ name, label }) => {
    const error = view.callbackForm?.errors[name];
    const value = view.callbackForm?.values[name] ?? stored[name] ?? '';
    return html`<label for="${name}">${label}</label>
      <input
        id="${name}"
        name="${name}"
        type="url"
        maxlength="2048"
        value="${value}"
        ${error ? html`aria-invalid="true" aria-describedby="${name}-error"` : ''}
      />
      ${error && html`<p class="error" id="${name}-error">${label}: ${error}</p>`}`;
  });
  return form(
    'callback-urls',
    csrf,
    html`${fields}
      <p class="hint">
        Checked by the address guard the dispatcher sends with: https (http too where this Paygate allows private
        callbacks), and no private network address. Leave a field empty to stop those callbacks.
      </p>
      <button type="submit">Save callback URLs</button>`,
    'stack',
  );
}

function testCallback(result: TestCallbackResult | undefined): Html {
  if (!result) return html``;
  const outcome =
    result.error !== null
      ? html`<p class="error" role="alert">The test callback was not delivered: ${result.error}.</p>`
      : html`<p class="${result.statusCode !== null && result.statusCode < 300 ? 'notice' : 'error'}" role="status">
          ${result.url} answered ${result.statusCode} in ${result.durationMs} ms (webhook-id
          <span class="mono">${result.webhookId}</span>).
        </p>`;
  return outcome;
}

function users(view: SettingsView, chrome: Chrome): Html {
  const csrf = chrome.signedIn.csrfToken;
  const self = chrome.signedIn.user.id;
  const roleOptions = (selected: string) =>
    DASHBOARD_ROLES.map(
      (role) => html`<option value="${role}" ${role === selected ? html`selected` : ''}>${role}</option>`,
    );
  return html`<table>
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Role</th>
          <th scope="col">Since</th>
          ${view.canManageUsers && html`<th scope="col">Change</th>`}
        </tr>
      </thead>
      <tbody>
        ${view.users.map(
          (user) =>
            html`<tr>
              <td>${user.email}${user.active ? '' : ' (invited)'}</td>
              <td>${user.role}</td>
              <td>${instant(user.createdAt)}</td>
              ${
                view.canManageUsers &&
                html`<td>
                  ${
                    user.id === self
                      ? 'you'
                      : html`${form(
                          `users/${user.id}/role`,
                          csrf,
                          html`<label for="role-${user.id}"
                              >Role<span class="visually-hidden"> of ${user.email}</span></label
                            >
                            <select id="role-${user.id}" name="role">
                              ${roleOptions(user.role)}
                            </select>
                            <button type="submit">Change role</button>`,
                          'inline',
                        )}
                        ${form(
                          `users/${user.id}/reset-password`,
                          csrf,
                          html`<button type="submit" aria-label="Reset password of ${user.email}">
                            Reset password
                          </button>`,
                          'inline',
                        )}
                        ${form(
                          `users/${user.id}/remove`,
                          csrf,
                          html`<button type="submit" aria-label="Remove ${user.email}">Remove</button>`,
                          'inline',
                        )}`
                  }
                </td>`
              }
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      view.invited &&
      html`<div class="notice" role="status">
        <p>
          ${
            view.invited.reason === 'invite'
              ? `${view.invited.email} is invited.`
              : `The password of ${view.invited.email} is reset and their sessions are ended.`
          }
          Send them this link to set a password; it works once, until ${instant(view.invited.expiresAt)}:
        </p>
        <div class="copy-row">
          <input
            id="invite-link"
            type="text"
            readonly
            value="${view.invited.url}"
            aria-label="Invite link"
            class="mono"
          />
          <button type="button" data-copy="invite-link" hidden>Copy</button>
        </div>
      </div>`
    }
    ${
      view.canManageUsers &&
      form(
        'users',
        csrf,
        html`<h3>Invite someone</h3>
          <label for="invite-email">Email</label>
          <input id="invite-email" name="email" type="email" required maxlength="254" />
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            ${roleOptions('viewer')}
          </select>
          <p class="hint">
            Owners do everything; developers manage keys, callbacks and sandbox tools; viewers only read.
          </p>
          <button type="submit">Invite</button>`,
        'stack',
      )
    }`;
}

function activityTable(entries: ActivityEntry[]): Html {
  if (entries.length === 0) return html`<p>Nothing done from the dashboard yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">When</th>
        <th scope="col">Who</th>
        <th scope="col">What</th>
        <th scope="col">Detail</th>
      </tr>
    </thead>
    <tbody>
      ${entries.map(
        (entry) =>
          html`<tr>
            <td>${instant(entry.at)}</td>
            <td>${entry.email}</td>
            <td>${ACTIVITY_ACTIONS[entry.action]}</td>
            <td>${entry.detail}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function settingsPage(chrome: Chrome, view: SettingsView) {
  const csrf = chrome.signedIn.csrfToken;
  return page(
    'Settings',
    html`<h1>Settings</h1>
      ${notice(view.notice)} ${alert(view.error)} ${view.shownOnce && shownOnce(view.shownOnce)}
      <section aria-labelledby="callbacks-heading">
        <h2 id="callbacks-heading">Callback URLs</h2>
        ${callbackUrls(view, csrf)} ${testCallback(view.testCallback)}
        ${view.canConfigure && form('test-callback', csrf, html`<button type="submit">Send test callback</button>`)}
      </section>
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys</h2>
        <dl class="record">
          <div>
            <dt>Merchant</dt>
            <dd>${view.merchant.name} (<span class="mono">${view.merchant.id}</span>)</dd>
          </div>
          <div>
            <dt>Public key</dt>
            <dd class="mono">${view.merchant.publicKey}</dd>
          </div>
          <div>
            <dt>Secret key and signing key</dt>
            <dd>shown only when they are made</dd>
          </div>
        </dl>
        ${
          view.canConfigure &&
          html`<p class="hint">
              A new key replaces the old one at once: callbacks are signed with the new signing key from now on, and
              requests with the old secret key are refused.
            </p>
            <div class="actions">
              ${form('signing-key', csrf, html`<button type="submit">Rotate signing key</button>`)}
              ${form('api-keys', csrf, html`<button type="submit">Rotate API keys</button>`)}
            </div>`
        }
      </section>
      <section aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        ${users(view, chrome)}
      </section>
      <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">Activity</h2>
        <p class="hint">What this merchant's users did from the dashboard, newest first (the latest 20).</p>
        ${activityTable(view.activity)}
      </section>`,
    chrome,
  );
}
