import {
  COLLECTION_STATUSES,
  TRANSACTION_METHODS,
  type CollectionDetails,
  type CollectionTimelineEntry,
  type DeliveryView,
  type RefundRecord,
  type ServicePaymentSummary,
} from '@paygate/contracts';
import { html, type Html } from '@paygate/platform';
import { filtersQuery, type CollectionFilters } from '../collection-filters';
import { instant, majorMoney, money, statusBadge } from './format';
import { alert, csrfField, notice, page, type Chrome } from './layout';
import { refundsSection, type RefundForm } from './refunds';

const detailPath = (record: CollectionDetails) => `/dashboard/collections/${record.internal_reference}`;

export function collectionsTable(records: CollectionDetails[]): Html {
  if (records.length === 0) return html`<p>No collections.</p>`;
  return html`<table>
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
      ${records.map(
        (record) =>
          html`<tr>
            <td>${instant(record.created_at)}</td>
            <td><a href="${detailPath(record)}">${record.merchant_reference}</a></td>
            <td class="mono">${record.internal_reference}</td>
            <td>${record.transaction_method} · ${record.provider_code}</td>
            <td>${majorMoney(record.request_amount, record.request_currency)}</td>
            <td>${statusBadge(record.transaction_status)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

const options = (values: readonly string[], selected: string, anyLabel: string) =>
  html`<option value="">${anyLabel}</option>
    ${values.map((value) => html`<option value="${value}" ${value === selected ? html`selected` : ''}>${value}</option>`)}`;

function filterForm(filters: CollectionFilters, providerCodes: readonly string[]): Html {
  return html`<form method="get" action="/dashboard/collections" class="filters" role="search">
    <div class="field wide">
      <label for="q">Search</label>
      <input id="q" name="q" type="search" value="${filters.q}" placeholder="merchant or internal reference" />
    </div>
    <div class="field">
      <label for="status">Status</label>
      <select id="status" name="status">
        ${options(COLLECTION_STATUSES, filters.status, 'Any status')}
      </select>
    </div>
    <div class="field">
      <label for="method">Method</label>
      <select id="method" name="method">
        ${options(TRANSACTION_METHODS, filters.method, 'Any method')}
      </select>
    </div>
    <div class="field">
      <label for="provider">Provider</label>
      <select id="provider" name="provider">
        ${options(providerCodes, filters.provider, 'Any provider')}
      </select>
    </div>
    <div class="field">
      <label for="from">From</label>
      <input id="from" name="from" type="date" value="${filters.from}" />
    </div>
    <div class="field">
      <label for="to">To</label>
      <input id="to" name="to" type="date" value="${filters.to}" />
    </div>
    <button type="submit">Apply</button>
    <a href="/dashboard/collections">Clear</a>
    <a href="/dashboard/collections.csv?${filtersQuery(filters).toString()}" download>Download CSV</a>
  </form>`;
}

export function collectionsPage(
  chrome: Chrome,
  view: {
    filters: CollectionFilters;
    providerCodes: readonly string[];
    records: CollectionDetails[];
    errors: string[];
    searched: boolean;
    nextQuery?: string;
  },
) {
  const heading = view.searched
    ? html`<p role="status">${view.records.length === 0 ? 'Nothing found for' : 'Found'} “${view.filters.q}”.</p>`
    : '';
  return page(
    'Collections',
    html`<h1>Collections</h1>
      ${filterForm(view.filters, view.providerCodes)} ${view.errors.map((error) => alert(error))} ${heading}
      ${view.errors.length === 0 ? collectionsTable(view.records) : ''}
      ${view.nextQuery && html`<p><a href="/dashboard/collections?${view.nextQuery}" rel="next">Next page</a></p>`}`,
    chrome,
  );
}

function recordList(record: CollectionDetails): Html {
  const rows: Array<[string, Html | string]> = [
    ['Status', html`${statusBadge(record.transaction_status)} ${record.status_message}`],
    ['Merchant reference', record.merchant_reference],
    ['Internal reference', html`<span class="mono">${record.internal_reference}</span>`],
    ['Method', `${record.transaction_method} via ${record.provider_code}`],
    ['Account', record.transaction_account ?? '—'],
    ['Customer', record.customer_name],
    ['Requested', majorMoney(record.request_amount, record.request_currency)],
    ['Fee', majorMoney(record.transaction_fee, record.transaction_currency)],
    ['Charged', majorMoney(record.transaction_amount, record.transaction_currency)],
    ['Credited to the wallet', majorMoney(record.total_credit, record.transaction_currency)],
    ['Fee paid by', record.charge_customer ? 'the customer' : 'the merchant'],
    ['Created', instant(record.created_at)],
    ['Updated', instant(record.updated_at)],
  ];
  return html`<dl class="record">
    ${rows.map(
      ([term, value]) =>
        html`<div>
          <dt>${term}</dt>
          <dd>${value}</dd>
        </div>`,
    )}
  </dl>`;
}

function timeline(entries: CollectionTimelineEntry[]): Html {
  return html`<ol class="timeline">
    ${entries.map(
      (entry) =>
        html`<li>
          <strong>${entry.event}</strong> ${instant(entry.at)}
          ${entry.detail && html`<br /><span class="detail">${entry.detail}</span>`}
        </li>`,
    )}
  </ol>`;
}

function servicePayment(payment: ServicePaymentSummary): Html {
  return html`<dl class="record">
    <div>
      <dt>PRN</dt>
      <dd class="mono">${payment.prn}</dd>
    </div>
    <div>
      <dt>Status</dt>
      <dd>${statusBadge(payment.status)} ${payment.statusMessage}</dd>
    </div>
    <div>
      <dt>Service</dt>
      <dd>${payment.serviceName ?? '—'}</dd>
    </div>
    <div>
      <dt>Amount</dt>
      <dd>${money(payment.amount, payment.currency)}</dd>
    </div>
    <div>
      <dt>Biller payment id</dt>
      <dd class="mono">${payment.billerPaymentId ?? '—'}</dd>
    </div>
  </dl>`;
}

function callback(delivery: DeliveryView, index: number): Html {
  const id = `callback-${index}`;
  return html`<section class="callback" aria-labelledby="${id}">
    <h3 id="${id}">${delivery.event} ${statusBadge(delivery.state)}</h3>
    <p>
      <span class="mono">${delivery.webhook_id}</span> to
      <span class="mono">${delivery.target_url ?? 'no URL set'}</span>
      ${delivery.next_attempt_at && delivery.state === 'pending' ? html`· next attempt ${instant(delivery.next_attempt_at)}` : ''}
    </p>
    ${
      delivery.attempts.length === 0
        ? html`<p>Not attempted yet.</p>`
        : html`<table class="attempts">
            <caption>
              Attempts at ${delivery.event}
            </caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Sent</th>
                <th scope="col">Response</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              ${delivery.attempts.map(
                (attempt) =>
                  html`<tr>
                    <td>${attempt.attempt}</td>
                    <td>${instant(attempt.started_at)}</td>
                    <td>${attempt.status_code ?? '—'}</td>
                    <td>${attempt.duration_ms} ms</td>
                    <td>${attempt.error ?? ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

export function collectionPage(
  chrome: Chrome,
  view: {
    record: CollectionDetails;
    timeline: CollectionTimelineEntry[];
    servicePayment: ServicePaymentSummary | null;
    callbacks: DeliveryView[];
    canResend: boolean;
    refunds: RefundRecord[];
    /** Shown to a role that may refund, on a COMPLETED collection with something left to refund. */
    refundForm?: RefundForm;
    notice?: string;
    refreshSeconds?: number;
  },
) {
  const { record } = view;
  return page(
    `Collection ${record.merchant_reference}`,
    html`<p><a href="/dashboard/collections">Collections</a></p>
      <h1>Collection ${record.merchant_reference}</h1>
      ${notice(view.notice)} ${recordList(record)}
      ${
        (view.refundForm || view.refunds.length > 0) &&
        refundsSection(`${detailPath(record)}/refund`, chrome.signedIn.csrfToken, view.refunds, view.refundForm)
      }
      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        ${timeline(view.timeline)}
      </section>
      ${
        view.servicePayment &&
        html`<section aria-labelledby="payment-heading">
          <h2 id="payment-heading">Service payment</h2>
          ${servicePayment(view.servicePayment)}
        </section>`
      }
      <section aria-labelledby="callbacks-heading">
        <h2 id="callbacks-heading">Callbacks</h2>
        ${
          view.canResend && view.callbacks.length > 0
            ? html`<form method="post" action="${detailPath(record)}/resend">
                ${csrfField(chrome.signedIn.csrfToken)}
                <button type="submit">Resend</button>
              </form>`
            : ''
        }
        ${view.callbacks.length === 0 ? html`<p>No callbacks yet.</p>` : view.callbacks.map(callback)}
      </section>`,
    chrome,
    view.refreshSeconds,
  );
}
