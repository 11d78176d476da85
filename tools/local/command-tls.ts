import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

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
 * COMMANDS_TLS_DIR for a layout on this machine: a private CA and one certificate every app of
 * the layout shares, issued by scripts/certs.sh once per process, as README's block does.
 */
export function localCommandTlsDir(): string {
  if (issued) return issued;
  const dir = mkdtempSync(join(tmpdir(), 'paygate-commands-tls-'));
  execFileSync('bash', [certsScript(), dir], { stdio: 'ignore' });
  issued = dir;
  return dir;
}
