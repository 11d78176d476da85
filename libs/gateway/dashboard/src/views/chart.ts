import type { CollectionStatus } from '@paygate/contracts';
import { toMajorUnits } from '@paygate/money';
import { html, type Html } from '@paygate/platform';
import type { DaySummary } from '../overview-stats';

const WIDTH = 720;
const HEIGHT = 180;
const AXIS = 24;
/** Outcome colours, each at least 3:1 against white (WCAG 1.4.11), in stacking order. */
const OUTCOMES: Array<{ status: CollectionStatus; label: string; colour: string }> = [
  { status: 'COMPLETED', label: 'Completed', colour: '#067647' },
  { status: 'FAILED', label: 'Failed', colour: '#b42318' },
  { status: 'CANCELLED', label: 'Cancelled', colour: '#667085' },
  { status: 'PENDING', label: 'Pending', colour: '#b54708' },
];

const swatch = (colour: string) =>
  html`<svg class="swatch" width="12" height="12" aria-hidden="true">
    <rect width="12" height="12" fill="${colour}" />
  </svg>`;

/** Bars of `values` by day, scaled to the largest; `stack` splits each bar into coloured parts. */
function bars(days: DaySummary[], stack: (day: DaySummary) => Array<{ value: number; colour: string }>): Html {
  const step = WIDTH / days.length;
  const top = Math.max(1, ...days.map((day) => stack(day).reduce((sum, part) => sum + part.value, 0)));
  const scale = (HEIGHT - AXIS) / top;
  return html`${days.map((day, i) => {
      let y = HEIGHT - AXIS;
      return stack(day).map(({ value, colour }) => {
        if (value === 0) return '';
        const height = Math.max(1, value * scale);
        y -= height;
        return html`<rect
          x="${(i * step + 2).toFixed(1)}"
          y="${y.toFixed(1)}"
          width="${(step - 4).toFixed(1)}"
          height="${height.toFixed(1)}"
          fill="${colour}"
        />`;
      });
    })}
    <line x1="0" y1="${HEIGHT - AXIS}" x2="${WIDTH}" y2="${HEIGHT - AXIS}" stroke="#52606d" />
    <text x="0" y="${HEIGHT - 6}" class="axis">${days[0]?.day}</text>
    <text x="${WIDTH}" y="${HEIGHT - 6}" text-anchor="end" class="axis">${days.at(-1)?.day}</text>
    <text x="0" y="12" class="axis">${top}</text>`;
}

/** Collections by day and outcome, drawn here (no chart library, no CDN), with the numbers as a table too. */
export function outcomesChart(days: DaySummary[]): Html {
  const totals = OUTCOMES.map(
    ({ status, label }) => `${days.reduce((sum, day) => sum + day.outcomes[status], 0)} ${label.toLowerCase()}`,
  );
  return html`<figure class="chart">
    <svg
      role="img"
      aria-labelledby="outcomes-title"
      aria-describedby="outcomes-desc"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      preserveAspectRatio="none"
    >
      <title id="outcomes-title">Collections by day and outcome, last ${days.length} days</title>
      <desc id="outcomes-desc">${totals.join(', ')}</desc>
      ${bars(days, (day) => OUTCOMES.map(({ status, colour }) => ({ value: day.outcomes[status], colour })))}
    </svg>
    <figcaption>
      Collections by day and outcome:
      ${OUTCOMES.map(({ label, colour }) => html`<span class="legend">${swatch(colour)} ${label}</span>`)}
    </figcaption>
  </figure>`;
}

/** Completed volume by day in one currency, in major units. */
export function volumeChart(days: DaySummary[], currency: string): Html {
  const id = `volume-${currency.toLowerCase()}`;
  const major = (day: DaySummary) => toMajorUnits(day.volume[currency] ?? 0, currency);
  return html`<figure class="chart">
    <svg role="img" aria-labelledby="${id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none">
      <title id="${id}">Completed volume by day in ${currency}, last ${days.length} days</title>
      ${bars(days, (day) => [{ value: major(day), colour: '#1a56db' }])}
    </svg>
    <figcaption>Completed volume by day, ${currency}</figcaption>
  </figure>`;
}

/** The charts' numbers, for anyone who cannot see them. */
export function chartTable(days: DaySummary[], currencies: string[]): Html {
  return html`<details>
    <summary>The numbers by day</summary>
    <table>
      <thead>
        <tr>
          <th scope="col">Day</th>
          ${OUTCOMES.map(({ label }) => html`<th scope="col">${label}</th>`)}
          ${currencies.map((currency) => html`<th scope="col">Completed ${currency}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${days.map(
          (day) =>
            html`<tr>
              <th scope="row">${day.day}</th>
              ${OUTCOMES.map(({ status }) => html`<td>${day.outcomes[status]}</td>`)}
              ${currencies.map((currency) => html`<td>${toMajorUnits(day.volume[currency] ?? 0, currency).toLocaleString('en')}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </details>`;
}
