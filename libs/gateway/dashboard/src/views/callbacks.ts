import { DELIVERY_STATES, type DeliveryView } from '@paygate/contracts';
import { html } from '@paygate/platform';
import { hostOf, instant, statusBadge } from './format';
import { alert, page, type Chrome } from './layout';

export function callbacksPage(
  chrome: Chrome,
  view: { state: string; deliveries: DeliveryView[]; error?: string; nextQuery?: string },
) {
  return page(
    'Callbacks',
    html`<h1>Callbacks</h1>
      <p>Every callback Paygate queued for you, newest first. A collection's page has each attempt and Resend.</p>
      <form method="get" action="/dashboard/callbacks" class="filters">
        <div class="field">
          <label for="state">State</label>
          <select id="state" name="state">
            <option value="">Any state</option>
            ${DELIVERY_STATES.map(
              (state) => html`<option value="${state}" ${state === view.state ? html`selected` : ''}>${state}</option>`,
            )}
          </select>
        </div>
        <button type="submit">Apply</button>
      </form>
      ${alert(view.error)}
      ${
        view.deliveries.length === 0
          ? html`<p>No callbacks${view.state && ` in state ${view.state}`}.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Queued</th>
                  <th scope="col">Event</th>
                  <th scope="col">Collection</th>
                  <th scope="col">To</th>
                  <th scope="col">State</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last response</th>
                </tr>
              </thead>
              <tbody>
                ${view.deliveries.map(
                  (delivery) =>
                    html`<tr>
                      <td>${instant(delivery.created_at)}</td>
                      <td>${delivery.event}</td>
                      <td>
                        <a href="/dashboard/collections/${delivery.internal_reference}" class="mono"
                          >${delivery.internal_reference}</a
                        >
                      </td>
                      <td class="mono">${hostOf(delivery.target_url) ?? 'no URL set'}</td>
                      <td>${statusBadge(delivery.state)}</td>
                      <td>${delivery.attempts.length}</td>
                      <td>${delivery.last_status ?? delivery.last_error ?? '—'}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      ${view.nextQuery && html`<p><a href="/dashboard/callbacks?${view.nextQuery}" rel="next">Next page</a></p>`}`,
    chrome,
  );
}
