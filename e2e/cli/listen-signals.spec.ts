import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { eventually } from '@paygate/testing';
import { ensureBuilt } from '@paygate/tools-local';

const root = join(__dirname, '..', '..');

/** The processes under `pid` (Linux /proc), deepest last. */
function descendants(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  const children = readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Running: it exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

/**
 * Issue 26: ^C (or SIGTERM) to `npx paygate listen` stops the listener, not only npx: npm passes
 * the signal on, and nothing stands between it and the paygate process to keep it (.npmrc). The
 * gateway is a loopback stand-in that opens the stream and holds it.
 */
describe('npx paygate listen stops with its parent on SIGINT and SIGTERM', () => {
  let gateway: Server;
  let gatewayUrl: string;
  const streams = new Set<ServerResponse>();

  beforeAll(async () => {
    ensureBuilt();
    gateway = createServer((request, response) => {
      if (!request.url?.startsWith('/v1/callbacks/stream')) return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: ready\ndata: {}\n\n');
      streams.add(response);
      response.on('close', () => streams.delete(response));
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const stream of streams) stream.destroy();
    await new Promise((resolve) => gateway?.close(resolve));
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s to npx: the paygate process under it is gone and its stream closed',
    async (signal) => {
      const npx = spawn('npx', ['--yes', 'paygate', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks'], {
        cwd: root,
        env: {
          ...process.env,
          PAYGATE_API_URL: gatewayUrl,
          PAYGATE_PUBLIC_KEY: 'pk_test_signals',
          PAYGATE_SECRET_KEY: 'sk_test_signals',
          npm_config_update_notifier: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npx.stdout.on('data', (chunk) => (output += chunk));
      npx.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise((resolve) => npx.once('exit', resolve));
      const pid = npx.pid as number;
      let tree: number[] = [];
      try {
        await eventually(
          () => (output.includes('Ready!') ? true : undefined),
          60_000,
          `paygate listen to connect (output: ${output})`,
        );
        tree = descendants(pid);
        const listener = tree.find((child) => commandLine(child).includes('paygate listen'));
        expect(listener).toEqual(expect.any(Number));
        expect(streams.size).toBe(1);

        npx.kill(signal);
        await exited;
        await eventually(
          () => (tree.every((child) => !running(child)) ? true : undefined),
          30_000,
          `every process under npx to stop (${tree.map(commandLine).join('; ')})`,
        );
        await eventually(() => (streams.size === 0 ? true : undefined), 10_000, 'the stream to close');
      } finally {
        // Whatever is left (a failure) is ended here, by id.
        for (const child of [pid, ...tree]) if (running(child)) process.kill(child, 'SIGKILL');
      }
    },
    120_000,
  );
});
