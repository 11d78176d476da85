import type { RefundRecord } from '@paygate/contracts';
import { html, type Html } from '@paygate/platform';
import { instant, majorMoney, money, statusBadge } from './format';
import { csrfField } from './layout';

/** The Refund form of a COMPLETED collection, for a role that may move money, while something is left to refund. */
export interface RefundForm {
  /** Integer minor units: what was paid, less what is refunded or being refunded. */
  left: number;
  currency: string;
  /** This form's refund_reference: the same form posted twice asks for the same refund, so it is made once. */
  reference: string;
  /** As posted, when the refund was refused. */
  amount?: string;
  reason?: string;
  error?: string;
}

function refundForm(action: string, csrf: string, form: RefundForm): Html {
  const error = form.error && html`<p class="error" role="alert" id="refund-error">${form.error}</p>`;
  return html`<form method="post" action="${action}" class="stack">
    ${csrfField(csrf)}
    <input type="hidden" name="refund_reference" value="${form.reference}" />
    <p id="refund-left">Left to refund: <strong>${money(form.left, form.currency)}</strong></p>
    <label for="refund-amount">Amount (${form.currency})</label>
    <input
      id="refund-amount"
      name="amount"
      inputmode="decimal"
      value="${form.amount ?? ''}"
      aria-describedby="refund-left refund-hint${form.error ? ' refund-error' : ''}"
      ${form.error ? html`aria-invalid="true"` : ''}
    />
    <p class="hint" id="refund-hint">Empty refunds all that is left. The money returns to the payer’s account.</p>
    <label for="refund-reason">Reason (optional)</label>
    <input id="refund-reason" name="reason" maxlength="255" value="${form.reason ?? ''}" />
    ${error}
    <button type="submit">Refund</button>
  </form>`;
}

function refundsTable(refunds: RefundRecord[]): Html {
  if (refunds.length === 0) return html`<p>No refunds yet.</p>`;
  return html`<table>
    <caption>
      Refunds of this collection, newest first
    </caption>
    <thead>
      <tr>
        <th scope="col">Requested</th>
        <th scope="col">Reference</th>
        <th scope="col">Amount</th>
        <th scope="col">Status</th>
        <th scope="col">Reason</th>
      </tr>
    </thead>
    <tbody>
      ${refunds.map(
        (refund) =>
          html`<tr>
            <td>${instant(refund.created_at)}</td>
            <td class="mono">${refund.refund_reference}</td>
            <td>${majorMoney(refund.amount, refund.currency)}</td>
            <td>
              ${statusBadge(refund.status)}
              ${refund.pending_reason === 'provider_unconfirmed' ? 'provider has not answered' : ''}
              ${refund.failure_reason ?? ''}
            </td>
            <td>${refund.reason ?? '—'}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** A collection's refunds, and the Refund form when the viewer may refund it. */
export function refundsSection(action: string, csrf: string, refunds: RefundRecord[], form?: RefundForm): Html {
  return html`<section aria-labelledby="refunds-heading">
    <h2 id="refunds-heading">Refunds</h2>
    ${form ? refundForm(action, csrf, form) : ''} ${refundsTable(refunds)}
  </section>`;
}
