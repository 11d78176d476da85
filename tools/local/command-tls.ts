import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { APPS } from '@paygate/contracts';

let issued: string | undefined;

/** scripts/certs.sh, found from here whether this runs from tools/ (jest) or dist/tools/ (bench, soak). */
function certsScript(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const script = join(dir, 'scripts', 'certs.sh');
    if (existsSync(script)) return script;
  }
  throw new Error('scripts/certs.sh not found above ' + __dirname);
}

/**
 * COMMANDS_TLS_DIR of `app` in a layout on this machine: one private CA and a certificate per
 * app naming it, issued by `scripts/certs.sh --apps` once per process, as README's block does.
 */
export function localCommandTlsDir(app: string): string {
  if (!issued) {
    const root = join(mkdtempSync(join(tmpdir(), 'paygate-commands-tls-')), 'apps');
    execFileSync('bash', [certsScript(), '--apps', root], { stdio: 'ignore' });
    issued = root;
  }
  return join(issued, app);
}

/**
 * COMMANDS_TLS_DIR for `app` started on this machine, as README's block gives each app its own;
 * nothing for the standalone app and the CLI, which send and serve no commands over TCP.
 */
export function localCommandTlsEnv(app: string): Record<string, string> {
  return (APPS as readonly string[]).includes(app) ? { COMMANDS_TLS_DIR: localCommandTlsDir(app) } : {};
}
