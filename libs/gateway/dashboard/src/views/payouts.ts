import type { MoneyOutAttentionItem, PayoutApproval, PayoutRecord } from '@paygate/contracts';
import { html, type Html } from '@paygate/platform';
import { instant, majorMoney, money, statusBadge } from './format';
import { alert, csrfField, notice, page, type Chrome } from './layout';

/** What the New payout form was given, as typed (amount in major units). */
export interface PayoutDraft {
  providerCode: string;
  msisdn: string;
  amount: string;
}

/** The name check's answer for a draft: the holder to show before Send payout, or why it cannot go. */
export interface CheckedPayout extends PayoutDraft {
  /** This form's payout_reference: the same form posted twice sends one payout. */
  reference: string;
  holder: string;
}

export interface PayoutsView {
  payouts: PayoutRecord[];
  waiting: PayoutApproval[];
  attention: MoneyOutAttentionItem[];
  providers: { code: string; name: string; currency: string }[];
  /** Whether the signed-in user may send and approve payouts (owners). */
  canMoveMoney: boolean;
  draft?: PayoutDraft;
  checked?: CheckedPayout;
  error?: string;
  notice?: string;
  /** The payout just sent or approved is not shown as such yet: the page reloads itself. */
  stale?: boolean;
}

function draftForm(csrf: string, view: PayoutsView): Html {
  const draft = view.draft;
  return html`<form method="post" action="/dashboard/payouts/check" class="stack">
    ${csrfField(csrf)}
    <label for="payout-provider">Provider</label>
    <select id="payout-provider" name="provider_code">
      ${view.providers.map(
        (provider) =>
          html`<option value="${provider.code}" ${draft?.providerCode === provider.code ? 'selected' : ''}>
            ${provider.name} (${provider.currency})
          </option>`,
      )}
    </select>
    <label for="payout-msisdn">Mobile money number</label>
    <input
      id="payout-msisdn"
      name="msisdn"
      inputmode="numeric"
      value="${draft?.msisdn ?? ''}"
      placeholder="256772000001"
    />
    <label for="payout-amount">Amount</label>
    <input id="payout-amount" name="amount" inputmode="decimal" value="${draft?.amount ?? ''}" />
    <p class="hint">The number’s account holder is looked up first; you see the name before anything is sent.</p>
    ${alert(view.error)}
    <button type="submit">Check name</button>
  </form>`;
}

function confirmForm(csrf: string, checked: CheckedPayout, currency: string, error: string | undefined): Html {
  return html`<form method="post" action="/dashboard/payouts" class="stack">
    ${csrfField(csrf)}
    <input type="hidden" name="payout_reference" value="${checked.reference}" />
    <input type="hidden" name="provider_code" value="${checked.providerCode}" />
    <input type="hidden" name="msisdn" value="${checked.msisdn}" />
    <input type="hidden" name="amount" value="${checked.amount}" />
    <input type="hidden" name="recipient_name" value="${checked.holder}" />
    <p id="payout-holder">
      Account holder of <span class="mono">${checked.msisdn}</span>: <strong>${checked.holder}</strong>
    </p>
    <p>Amount: ${majorMoney(Number(checked.amount), currency)} (the payout fee is taken from the wallet with it).</p>
    ${alert(error)}
    <button type="submit">Send payout</button>
    <a href="/dashboard/payouts">Start over</a>
  </form>`;
}

const currencyOf = (view: PayoutsView, providerCode: string) =>
  view.providers.find((provider) => provider.code === providerCode)?.currency ?? '';

const reasonOf = (payout: PayoutRecord) =>
  payout.pending_reason === 'provider_unconfirmed' ? 'provider has not answered' : (payout.failure_reason ?? '');

function approvalsTable(csrf: string, view: PayoutsView, me: string): Html {
  if (view.waiting.length === 0) return html`<p>No payout is waiting for approval.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Requested</th>
        <th scope="col">Reference</th>
        <th scope="col">To</th>
        <th scope="col">Amount</th>
        <th scope="col">Approval</th>
      </tr>
    </thead>
    <tbody>
      ${view.waiting.map(
        ({ payout, createdBy }) =>
          html`<tr>
            <td>${instant(payout.created_at)}</td>
            <td class="mono">${payout.payout_reference}</td>
            <td><span class="mono">${payout.msisdn}</span> ${payout.recipient_name ?? ''}</td>
            <td>${majorMoney(payout.amount, payout.currency)}</td>
            <td>
              ${
                !view.canMoveMoney
                  ? 'an owner approves it'
                  : createdBy === me
                    ? 'another owner approves it'
                    : html`<form method="post" action="/dashboard/payouts/${payout.payout_reference}/approve">
                        ${csrfField(csrf)}
                        <button type="submit">Approve</button>
                      </form>`
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function attentionSection(items: MoneyOutAttentionItem[]): Html {
  if (items.length === 0) return html``;
  return html`<section aria-labelledby="attention-heading">
    <h2 id="attention-heading">Needs attention</h2>
    <p>
      The provider has not confirmed these for a long time. Their money stays held; Paygate keeps asking the provider
      and never marks one failed that it did not say failed.
    </p>
    <table>
      <thead>
        <tr>
          <th scope="col">Requested</th>
          <th scope="col">Kind</th>
          <th scope="col">Reference</th>
          <th scope="col">Amount</th>
          <th scope="col">Requests sent</th>
        </tr>
      </thead>
      <tbody>
        ${items.map(
          (item) =>
            html`<tr>
              <td>${instant(item.created_at)}</td>
              <td>${item.kind}</td>
              <td class="mono">${item.reference}</td>
              <td>${money(item.amount, item.currency)}</td>
              <td>${item.sends}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function payoutsTable(payouts: PayoutRecord[]): Html {
  if (payouts.length === 0) return html`<p>No payouts yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Requested</th>
        <th scope="col">Reference</th>
        <th scope="col">To</th>
        <th scope="col">Amount</th>
        <th scope="col">Fee</th>
        <th scope="col">Status</th>
      </tr>
    </thead>
    <tbody>
      ${payouts.map(
        (payout) =>
          html`<tr>
            <td>${instant(payout.created_at)}</td>
            <td class="mono">${payout.payout_reference}</td>
            <td><span class="mono">${payout.msisdn}</span> ${payout.recipient_name ?? ''}</td>
            <td>${majorMoney(payout.amount, payout.currency)}</td>
            <td>${majorMoney(payout.fee, payout.currency)}</td>
            <td>${statusBadge(payout.status)} ${reasonOf(payout)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Payouts from the wallet: the new payout (name check, then Send payout), approvals, what needs attention, the list. */
export function payoutsPage(chrome: Chrome, view: PayoutsView): string {
  const { csrfToken, user } = chrome.signedIn;
  return page(
    'Payouts',
    html`<h1>Payouts</h1>
      ${notice(view.notice)}
      ${
        view.canMoveMoney &&
        html`<section aria-labelledby="new-payout-heading">
          <h2 id="new-payout-heading">New payout</h2>
          ${
            view.checked
              ? confirmForm(csrfToken, view.checked, currencyOf(view, view.checked.providerCode), view.error)
              : draftForm(csrfToken, view)
          }
        </section>`
      }
      <section aria-labelledby="approvals-heading">
        <h2 id="approvals-heading">Waiting for approval</h2>
        <p>
          A payout above your approval threshold waits here until an owner other than the one who sent it approves it.
        </p>
        ${approvalsTable(csrfToken, view, user.id)}
      </section>
      ${attentionSection(view.attention)}
      <section aria-labelledby="payouts-heading">
        <h2 id="payouts-heading">Recent payouts</h2>
        ${payoutsTable(view.payouts)}
      </section>`,
    chrome,
    view.stale ? 1 : undefined,
  );
}
