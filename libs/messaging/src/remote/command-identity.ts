/**
 * Which app a command certificate belongs to: its one `spiffe://paygate/<app>` URI subject
 * alternative name (the SPIFFE ID form, which cert-manager and scripts/certs.sh --apps write).
 */
const PAYGATE_ID = 'spiffe://paygate/';

/** The URI that names `app` in its certificate. */
export function commandIdentity(app: string): string {
  return `${PAYGATE_ID}${app}`;
}

/**
 * The app a peer certificate names, or undefined when it names none or more than one. Node lists
 * the names as `URI:…, DNS:…`, quoting any that holds a separator, which then names nothing.
 */
export function appNamedBy(certificate: { subjectaltname?: string } | undefined): string | undefined {
  const apps = (certificate?.subjectaltname ?? '')
    .split(', ')
    .filter((name) => name.startsWith(`URI:${PAYGATE_ID}`))
    .map((name) => name.slice(`URI:${PAYGATE_ID}`.length));
  return apps.length === 1 && /^[a-z][a-z-]*$/.test(apps[0]) ? apps[0] : undefined;
}
