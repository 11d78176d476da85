import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The merchant package as a merchant gets it: `npm pack` of packages/paygate-node, installed
 * into an empty project, then required by plain Node to verify the callback of docs/webhooks.md's
 * test vectors. The install is offline with an empty npm cache, so it passes on any machine: its
 * dependencies (openapi-fetch and what that needs) are packed from this workspace's node_modules
 * and installed beside it, as the registry would have given them.
 */
describe('the merchant package (paygate-node)', () => {
  const work = mkdtempSync(join(tmpdir(), 'paygate-node-'));
  const npm = (args: string[], cwd: string) =>
    execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /**
   * Tarballs of `names` and of everything they depend on, packed from the workspace's node_modules (no scripts run).
   */
  const packedFromNodeModules = (names: string[], seen = new Set<string>()): string[] =>
    names
      .filter((name) => !seen.has(name) && seen.add(name))
      .flatMap((name) => {
        const folder = join(__dirname, '../../node_modules', name);
        const [{ filename }] = JSON.parse(
          npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], folder),
        ) as { filename: string }[];
        const { dependencies = {} } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
          dependencies?: Record<string, string>;
        };
        return [join(work, filename), ...packedFromNodeModules(Object.keys(dependencies), seen)];
      });

  it("packs, installs into an empty folder and verifies the docs' test vector, refusing it when altered", () => {
    // Tarballs go to the temporary folder only: none is left in the work tree.
    const packageDir = join(__dirname, '../../packages/paygate-node');
    const tarballs = () => readdirSync(packageDir).filter((name) => name.endsWith('.tgz'));
    const tarballsBefore = tarballs();
    const packed = JSON.parse(
      npm(['pack', '--json', '--pack-destination', work], join(__dirname, '../../packages/paygate-node')),
    ) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = packed[0].files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/api-types.d.ts', 'package.json']),
    );
    expect(files.filter((path) => path.endsWith('.spec.js') || path.startsWith('src/'))).toEqual([]);
    expect(tarballs()).toEqual(tarballsBefore);

    const merchant = join(work, 'merchant');
    execFileSync('mkdir', ['-p', merchant]);
    writeFileSync(
      join(merchant, 'package.json'),
      JSON.stringify({ name: 'merchant-app', version: '1.0.0', private: true }),
    );
    const { dependencies } = JSON.parse(
      readFileSync(join(__dirname, '../../packages/paygate-node/package.json'), 'utf8'),
    ) as {
      dependencies: Record<string, string>;
    };
    npm(
      [
        'install',
        '--offline',
        '--no-audit',
        '--no-fund',
        `--cache=${join(work, 'empty-npm-cache')}`,
        join(work, packed[0].filename),
        ...packedFromNodeModules(Object.keys(dependencies)),
      ],
      merchant,
    );
    expect(JSON.parse(readFileSync(join(merchant, 'package.json'), 'utf8')).dependencies).toHaveProperty(
      'paygate-node',
    );

    const doc = readFileSync(join(__dirname, '../../docs/webhooks.md'), 'utf8');
    const vector = /id `(msg_\w+)`, timestamp `(\d+)`, body `(\{.*?\})` \| `(v1,[^`]+)`/.exec(doc);
    const hmac = /`hmac-signature` of `42:PGTESTREF0000001:COMPLETED:order-1001` \| `([0-9a-f]{64})`/.exec(doc);
    if (!vector || !hmac) throw new Error('docs/webhooks.md no longer shows its test vectors as this suite reads them');
    const [, id, timestamp, body, signature] = vector;
    writeFileSync(
      join(merchant, 'verify.js'),
      `const { constructEvent, WebhookVerificationError } = require('paygate-node');
const [body, headers] = [process.argv[2], JSON.parse(process.argv[3])];
try {
  const event = constructEvent(body, headers, 'sk_test_signing_key_123', { nowSeconds: ${timestamp} });
  console.log(JSON.stringify({ id: event.id, type: event.type, ref: event.payload.internal_reference }));
} catch (error) {
  console.log(JSON.stringify({ refused: error instanceof WebhookVerificationError && error.reason }));
}
`,
    );
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
      'hmac-signature': hmac[1],
    };
    const run = (sentBody: string) =>
      JSON.parse(
        execFileSync('node', ['verify.js', sentBody, JSON.stringify(headers)], { cwd: merchant, encoding: 'utf8' }),
      );
    expect(run(body)).toEqual({ id, type: 'transaction.completed', ref: 'PGTESTREF0000001' });
    expect(run(body.replace('COMPLETED', 'FAILED'))).toEqual({ refused: 'no_matching_signature' });
    // The typed client comes with it, and its one dependency (openapi-fetch) was installed beside it.
    const client = execFileSync(
      'node',
      [
        '-e',
        "console.log(typeof require('paygate-node').createPaygateClient({ baseUrl: 'http://127.0.0.1:1', publicKey: 'pk' }).POST)",
      ],
      {
        cwd: merchant,
        encoding: 'utf8',
      },
    );
    expect(client.trim()).toBe('function');
  });
});
