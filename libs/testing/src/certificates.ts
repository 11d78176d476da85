import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CERTS_SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'certs.sh');

/**
 * A fresh private CA and one certificate it signs, in a temporary folder (ca.crt, tls.crt,
 * tls.key), issued by scripts/certs.sh as operators do; `names` are its subject alternative
 * names (DNS:…, IP:…; loopback by default). Each call is a CA of its own: a "foreign" one.
 */
export function issueTestCertificates(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-test-certs-'));
  execFileSync('bash', [CERTS_SCRIPT, dir, ...names], { stdio: 'ignore' });
  return dir;
}
