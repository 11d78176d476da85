import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** Builds dist/ once when a suite that spawns apps (e2e/distributed, the soak) runs before `npm run build` did. */
export function ensureBuilt(): void {
  if (existsSync(join(root, 'dist/apps/standalone/main.js'))) return;
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}
