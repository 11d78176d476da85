import type { ServicePaymentSummary, WalletBalance, WalletEntry } from '@paygate/contracts';
import { html } from '@paygate/platform';
import { instant, money, statusBadge } from './format';
import { page, type Chrome } from './layout';
import { walletTable } from './overview';

const KINDS: Record<WalletEntry['kind'], string> = {
  collection_credit: 'Collection credited',
  top_up: 'Top-up',
  hold: 'Hold placed',
  hold_release: 'Hold released',
  hold_capture: 'Hold captured',
  money_out_reversal: 'Payout reversed',
};

const signed = (minor: number, currency: string) => (minor > 0 ? `+${money(minor, currency)}` : money(minor, currency));
const collectionLink = (internalReference: string | null) =>
  internalReference
    ? html`<a href="/dashboard/collections/${internalReference}" class="mono">${internalReference}</a>`
    : '—';
const nextLink = (path: string, query: string | undefined) =>
  query && html`<p><a href="${path}?${query}" rel="next">Next page</a></p>`;

export function walletPage(
  chrome: Chrome,
  view: { balances: WalletBalance[]; entries: WalletEntry[]; nextQuery?: string },
) {
  return page(
    'Wallet',
    html`<h1>Wallet</h1>
      <section aria-labelledby="balances-heading">
        <h2 id="balances-heading">Balances</h2>
        ${walletTable(view.balances)}
      </section>
      <section aria-labelledby="ledger-heading">
        <h2 id="ledger-heading">Ledger</h2>
        <p>
          Newest first. Holds set money aside from what is available until they are captured or released: a refund or
          payout (purpose REFUND or PAYOUT) is held from its request until the provider answers.
        </p>
        ${
          view.entries.length === 0
            ? html`<p>No wallet movements yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Movement</th>
                    <th scope="col">Balance</th>
                    <th scope="col">Available</th>
                    <th scope="col">Transfers</th>
                    <th scope="col">Collection</th>
                  </tr>
                </thead>
                <tbody>
                  ${view.entries.map(
                    (entry) =>
                      html`<tr>
                        <td>${instant(entry.at)}</td>
                        <td>${KINDS[entry.kind]}${entry.purpose && ` (${entry.purpose})`}</td>
                        <td>${signed(entry.balanceChange, entry.currency)}</td>
                        <td>${signed(entry.availableChange, entry.currency)}</td>
                        <td>
                          ${entry.transfers.map(
                            (transfer) =>
                              html`<span class="transfer"
                                >${money(transfer.amount, entry.currency)} ${transfer.debitAccount} →
                                ${transfer.creditAccount}</span
                              >`,
                          )}
                        </td>
                        <td>${collectionLink(entry.internalReference)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        ${nextLink('/dashboard/wallet', view.nextQuery)}
      </section>`,
    chrome,
  );
}

export type ListedServicePayment = ServicePaymentSummary & { internalReference: string; openedAt: string };

export function paymentsPage(chrome: Chrome, view: { payments: ListedServicePayment[]; nextQuery?: string }) {
  return page(
    'Service payments',
    html`<h1>Service payments</h1>
      <p>PRN payments made from collected funds (collect-for-payment), newest first.</p>
      ${
        view.payments.length === 0
          ? html`<p>No service payments yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Opened</th>
                  <th scope="col">PRN</th>
                  <th scope="col">Service</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Status</th>
                  <th scope="col">Collection</th>
                </tr>
              </thead>
              <tbody>
                ${view.payments.map(
                  (payment) =>
                    html`<tr>
                      <td>${instant(payment.openedAt)}</td>
                      <td class="mono">${payment.prn}</td>
                      <td>${payment.serviceName ?? '—'}</td>
                      <td>${money(payment.amount, payment.currency)}</td>
                      <td>${statusBadge(payment.status)} ${payment.statusMessage}</td>
                      <td>${collectionLink(payment.internalReference)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      ${nextLink('/dashboard/payments', view.nextQuery)}`,
    chrome,
  );
}
