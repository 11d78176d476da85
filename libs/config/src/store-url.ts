import { accessSync, constants } from 'node:fs';
import { pemCertificatesProblem } from './settings';

/**
 * The TLS modes STORE_URL accepts. node-postgres (pg-connection-string 2.x) takes `prefer`,
 * `require` and `verify-ca` to mean `verify-full`, and says a later major version will give them
 * libpq's weaker meaning (encryption without checking the server): Paygate refuses them rather
 * than let an upgrade quietly stop verifying the server. `no-verify` (encrypted, any server) is
 * refused for the same reason.
 */
export const STORE_SSL_MODES = ['disable', 'verify-full'] as const;

/**
 * Why a postgres:// STORE_URL's TLS parameters would not work (a refused sslmode, a file that
 * cannot be read); undefined when they would. Names parameters and file paths, never the URL's
 * credentials.
 */
export function postgresTlsProblem(raw: string): string | undefined {
  if (!/^postgres(ql)?:\/\//.test(raw)) return undefined;
  let params: URLSearchParams;
  try {
    params = new URL(raw).searchParams;
  } catch {
    return 'is not a valid URL';
  }
  const mode = params.get('sslmode');
  if (mode !== null && !(STORE_SSL_MODES as readonly string[]).includes(mode)) {
    return `has sslmode=${mode}: use sslmode=verify-full (with sslrootcert=<CA file> for a private CA) or sslmode=disable; node-postgres and libpq disagree on what ${mode} checks`;
  }
  const root = params.get('sslrootcert');
  if (root !== null) {
    const problem = pemCertificatesProblem(root);
    if (problem !== undefined) return `has sslrootcert=${root}: ${problem}`;
  }
  const cert = params.get('sslcert');
  const key = params.get('sslkey');
  if ((cert === null) !== (key === null)) return 'needs sslcert and sslkey together (a client certificate and its key)';
  for (const [name, path] of [
    ['sslcert', cert],
    ['sslkey', key],
  ] as const) {
    if (path === null) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      return `has ${name}=${path}: cannot read it (${(error as NodeJS.ErrnoException).code})`;
    }
  }
  if (mode === 'disable' && (root !== null || cert !== null))
    return 'has sslmode=disable with sslrootcert or sslcert: say which one is meant';
  return undefined;
}
