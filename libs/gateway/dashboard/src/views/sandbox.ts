import { DASHBOARD_TRIGGER_EVENTS, SANDBOX_TRIGGERS, STANDING_PRN } from '@paygate/contracts';
import { html } from '@paygate/platform';
import { alert, csrfField, page, type Chrome } from './layout';

export function sandboxPage(chrome: Chrome, { canTrigger, error }: { canTrigger: boolean; error?: string }) {
  return page(
    'Sandbox',
    html`<h1>Sandbox tools</h1>
      <p>
        Each button runs a real sandbox collection whose test values produce the callback event, exactly as
        <code>paygate trigger</code> does: nothing is forged, and it shows up in your collections and callbacks.
      </p>
      <p class="hint">
        payment.completed pays the sandbox's standing PRN ${STANDING_PRN}, which can be paid once: after that the biller
        refuses it and the button gives payment.failed.
      </p>
      <p class="hint">
        refund.completed and refund.failed: run <code>paygate trigger refund.completed</code> (or
        <code>refund.failed</code>), which waits for its collection to complete and then refunds half of it.
      </p>
      ${alert(error)}
      <table>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">What the sandbox does</th>
            <th scope="col">Callbacks you get</th>
            ${canTrigger && html`<th scope="col">Run</th>`}
          </tr>
        </thead>
        <tbody>
          ${DASHBOARD_TRIGGER_EVENTS.map((event) => [event, SANDBOX_TRIGGERS[event]] as const).map(
            ([event, trigger]) =>
              html`<tr>
                <th scope="row" class="mono">${event}</th>
                <td>${trigger.how}</td>
                <td>${trigger.expect.join(', ')}</td>
                ${
                  canTrigger &&
                  html`<td>
                    <form method="post" action="/dashboard/sandbox/trigger">
                      ${csrfField(chrome.signedIn.csrfToken)}
                      <input type="hidden" name="event" value="${event}" />
                      <button type="submit">Trigger ${event}</button>
                    </form>
                  </td>`
                }
              </tr>`,
          )}
        </tbody>
      </table>`,
    chrome,
  );
}
