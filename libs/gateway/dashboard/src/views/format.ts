import { toMajorUnits } from '@paygate/money';
import { html } from '@paygate/platform';

const amount = (major: number) => major.toLocaleString('en', { maximumFractionDigits: 3 });

/** Integer minor units as a person reads them: "UGX 81,000". */
export const money = (minor: number, currency: string) => `${currency} ${amount(toMajorUnits(minor, currency))}`;

/** An amount the record already gives in major units. */
export const majorMoney = (major: number, currency: string) => `${currency} ${amount(major)}`;

/** An instant as a `<time>`, shown to the second in UTC. */
export const instant = (iso: string | null | undefined) =>
  iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>` : '—';

export const statusBadge = (status: string) =>
  html`<span class="status status-${status.toLowerCase()}">${status}</span>`;

/** Where a URL points, to show or log: its host, never its path or any credentials it holds; undefined for none. */
export function hostOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
