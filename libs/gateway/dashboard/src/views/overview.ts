import type { CollectionDetails, WalletBalance } from '@paygate/contracts';
import { html, type Html } from '@paygate/platform';
import type { ActivitySummary, PeriodSummary } from '../overview-stats';
import { chartTable, outcomesChart, volumeChart } from './chart';
import { collectionsTable } from './collections';
import { money } from './format';
import { page, type Chrome } from './layout';

const rate = (summary: PeriodSummary) =>
  summary.successRate === null ? '—' : `${(summary.successRate * 100).toFixed(1)}%`;

function period(title: string, id: string, summary: PeriodSummary): Html {
  return html`<section class="card" aria-labelledby="${id}">
    <h2 id="${id}">${title}</h2>
    <dl class="figures">
      <div>
        <dt>Collections</dt>
        <dd>${summary.count.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Success rate</dt>
        <dd>${rate(summary)}</dd>
      </div>
      <div>
        <dt>Completed volume</dt>
        ${
          summary.volume.length === 0
            ? html`<dd>—</dd>`
            : summary.volume.map(({ currency, amount }) => html`<dd>${money(amount, currency)}</dd>`)
        }
      </div>
    </dl>
  </section>`;
}

export function walletTable(balances: WalletBalance[]): Html {
  if (balances.length === 0) return html`<p>No money has reached the wallet yet.</p>`;
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Currency</th>
        <th scope="col">Balance</th>
        <th scope="col">Available</th>
        <th scope="col">On hold</th>
      </tr>
    </thead>
    <tbody>
      ${balances.map(
        (wallet) =>
          html`<tr>
            <td>${wallet.currency}</td>
            <td>${money(wallet.balance, wallet.currency)}</td>
            <td>${money(wallet.available, wallet.currency)}</td>
            <td>${money(wallet.balance - wallet.available, wallet.currency)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function overviewPage(
  chrome: Chrome,
  { activity, balances, latest }: { activity: ActivitySummary; balances: WalletBalance[]; latest: CollectionDetails[] },
) {
  const currencies = activity.period.volume.map((volume) => volume.currency);
  return page(
    'Overview',
    html`<h1>Overview</h1>
      <div class="cards">
        ${period('Today', 'today-heading', activity.today)}
        ${period(`Last ${activity.days.length} days`, 'period-heading', activity.period)}
      </div>
      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">By day (UTC)</h2>
        ${outcomesChart(activity.days)} ${currencies.map((currency) => volumeChart(activity.days, currency))}
        ${chartTable(activity.days, currencies)}
      </section>
      <section aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">Wallet</h2>
        ${walletTable(balances)}
      </section>
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Latest collections</h2>
        ${collectionsTable(latest)}
        <p><a href="/dashboard/collections">All collections</a></p>
      </section>`,
    chrome,
  );
}
