import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CERTS_SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'certs.sh');

/**
 * A fresh private CA and one certificate it signs (ca.crt, tls.crt, tls.key), issued by
 * scripts/certs.sh as operators do, into `dir` (a new temporary folder by default); `names` are
 * its subject alternative names (DNS:…, IP:…; loopback by default). Each call is a CA of its
 * own: call twice for a "foreign" one.
 */
export function issueTestCertificates({
  dir = mkdtempSync(join(tmpdir(), 'paygate-test-certs-')),
  names = [],
}: { dir?: string; names?: string[] } = {}): string {
  execFileSync('bash', [CERTS_SCRIPT, dir, ...names], { stdio: 'ignore' });
  return dir;
}

/**
 * A fresh private CA and one certificate per app naming it (spiffe://paygate/<app>), issued by
 * `scripts/certs.sh --apps` as README's distributed block does; each app's folder is
 * `join(root, app)`. Each call is a CA of its own.
 */
export function issueAppCertificates(root = join(mkdtempSync(join(tmpdir(), 'paygate-test-certs-')), 'apps')): string {
  execFileSync('bash', [CERTS_SCRIPT, '--apps', root], { stdio: 'ignore' });
  return root;
}
