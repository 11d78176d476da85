import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** The shell block under README's "Distributed mode", as a user copies it. */
export function readmeDistributedBlock(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Distributed mode'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README has no sh block under "## Distributed mode"');
  return block;
}

/** Base URL of each app the README block starts, by the port it gives it. */
export function readmeApps(block = readmeDistributedBlock()): Record<string, string> {
  const apps: Record<string, string> = {};
  for (const [, port, app] of block.matchAll(/PORT=(\d+)[\s\S]*?node dist\/apps\/([\w-]+)\/main\.js/g))
    apps[app] = `http://127.0.0.1:${port}`;
  return apps;
}

export interface ReadmeLayout {
  apps: Record<string, string>;
  output(): string;
  /** Kills every process the block started (they share one process group). */
  stop(): Promise<void>;
}

/** The variables README's block keeps when they are set ("Yours if already set"): all a test may give it. */
export interface ReadmeKeeps {
  STORE_URL: string;
  BROKER_URL: string;
  MASTER_KEY: string;
  ADMIN_TOKEN: string;
}

/**
 * Runs README's distributed block in bash exactly as printed, every line but `npm run build`
 * (the suite builds once), in a shell as bare as a new user's: PATH and HOME, and the four
 * variables the block keeps when set. Nothing else reaches the apps (no test timers, no
 * ALLOW_PRIVATE_CALLBACKS), so what works here works for a user copying the block. The apps run
 * in the block's process group.
 */
export function startReadmeLayout(keeps: ReadmeKeeps): ReadmeLayout {
  const block = readmeDistributedBlock();
  const script = block
    .split('\n')
    .filter((line) => line.trim() !== 'npm run build')
    .join('\n');
  const shell: ChildProcess = spawn('bash', ['-c', `${script}\nwait`], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? root, ...keeps },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  shell.stdout?.on('data', (chunk) => (output += chunk));
  shell.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => shell.once('exit', () => resolve()));
  return {
    apps: readmeApps(block),
    output: () => output,
    stop: async () => {
      try {
        process.kill(-(shell.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    },
  };
}
