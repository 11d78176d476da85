import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { UnavailableError } from '@paygate/contracts';
import { NO_METRICS } from '@paygate/metrics';
import { freePort } from '@paygate/net-guard';
import { issueAppCertificates, issueTestCertificates } from '@paygate/testing';
import type { CommandBus } from '../command-bus';
import { readCommandTls, type CommandTls } from './command-tls';
import { forgedTopUp, observed, readCommandTlsFiles, TopUp, WALLETS } from './command-test-setup';
import { TcpCommandBus } from './tcp-command-bus';

/** The serving app's and the gateway's credentials, from Paygate's CA. */
let paygate: CommandTls;
let gatewayTls: CommandTls;
/** The gateway's folder of another CA. */
let foreign: string;

beforeAll(() => {
  const apps = issueAppCertificates();
  paygate = readCommandTls(join(apps, 'service-payments'));
  gatewayTls = readCommandTls(join(apps, 'api-gateway'));
  foreign = join(issueAppCertificates(), 'api-gateway');
});

describe('a service takes commands only from peers with a certificate from the private CA', () => {
  let server: CommandBus;
  let url: string;
  let balance: number;
  let seen: ReturnType<typeof observed>;
  const opened: { close(): unknown }[] = [];

  beforeEach(async () => {
    balance = 0;
    seen = observed();
    url = `tcp://127.0.0.1:${await freePort()}`;
    server = new TcpCommandBus({ listenUrl: url, services: {}, tls: paygate }, seen.log, seen.metrics, 2_000);
    await server.serve(WALLETS, async (message) => ({ balance: (balance += (message as TopUp).payload.amount) }));
  });

  afterEach(async () => {
    for (const client of opened.splice(0)) client.close();
    await server.close();
  });

  const forged = (tlsOptions?: ConnectionOptions) => forgedTopUp(url, 999_999, tlsOptions);

  const trustingPaygate = () => ({ ca: paygate.ca, checkServerIdentity: () => undefined });

  it('refuses a plain TCP client: the command never runs, the refusal is counted and logged', async () => {
    expect(await forged()).toHaveProperty('refused');
    expect(balance).toBe(0);
    expect(seen.refused).toEqual({ not_tls: 1 });
    expect(seen.warnings).toEqual([
      {
        message: 'command connection refused: no certificate from the private CA',
        fields: { peer: '127.0.0.1', reason: 'not_tls' },
      },
    ]);
  });

  it('refuses a TLS client that presents no certificate', async () => {
    expect(await forged(trustingPaygate())).toHaveProperty('refused');
    expect(balance).toBe(0);
    expect(seen.refused).toEqual({ no_certificate: 1 });
  });

  it('refuses a certificate that another CA signed', async () => {
    expect(
      await forged({ ...readCommandTlsFiles(foreign), ca: paygate.ca, checkServerIdentity: () => undefined }),
    ).toHaveProperty('refused');
    expect(balance).toBe(0);
    expect(seen.refused).toEqual({ untrusted_certificate: 1 });
  });

  it('logs a peer that keeps knocking once, and counts every attempt', async () => {
    for (let i = 0; i < 3; i++) expect(await forged()).toHaveProperty('refused');
    expect(seen.refused).toEqual({ not_tls: 3 });
    expect(seen.warnings).toHaveLength(1);
    expect(balance).toBe(0);
  });

  it('runs the command for a peer with the private CA’s certificate', async () => {
    const gateway = new TcpCommandBus({ services: { wallets: url }, tls: gatewayTls }, seen.log, NO_METRICS, 2_000);
    opened.push({ close: () => gateway.close() });
    await expect(gateway.send(new TopUp({ amount: 500 }))).resolves.toEqual({ balance: 500 });
    expect(seen.refused).toEqual({});
  });

  it('never sends a command to a server that cannot prove the private CA signed it', async () => {
    const impostorUrl = `tcp://127.0.0.1:${await freePort()}`;
    let impostorRan = false;
    const impostor = new TcpCommandBus(
      { listenUrl: impostorUrl, services: {}, tls: readCommandTls(join(foreign, '..', 'service-payments')) },
      seen.log,
      NO_METRICS,
      2_000,
    );
    await impostor.serve(WALLETS, async () => {
      impostorRan = true;
      return { balance: 0 };
    });
    const gateway = new TcpCommandBus(
      { services: { wallets: impostorUrl }, tls: gatewayTls },
      seen.log,
      NO_METRICS,
      1_000,
    );
    opened.push({ close: () => gateway.close() }, { close: () => impostor.close() });
    await expect(gateway.send(new TopUp({ amount: 500 }))).rejects.toBeInstanceOf(UnavailableError);
    expect(impostorRan).toBe(false);
  });

  it('cannot send or serve without credentials: the start stops naming COMMANDS_TLS_DIR', async () => {
    const bare = new TcpCommandBus(
      { listenUrl: `tcp://127.0.0.1:${await freePort()}`, services: {} },
      seen.log,
      NO_METRICS,
      1_000,
    );
    await expect(bare.serve(WALLETS, async () => ({ balance: 0 }))).rejects.toThrow(/COMMANDS_TLS_DIR is not set/);
  });
});

describe('a renewed certificate (cert-manager rewriting the Secret) is taken up without a restart', () => {
  /** A folder holding a copy of `from`'s files, as a mounted Secret does. */
  const mounted = (from: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-mounted-certs-'));
    cpSync(from, dir, { recursive: true });
    return dir;
  };

  it('serves and sends with the new CA and certificate from the next connection on, and refuses the old one', async () => {
    const [first, second] = [issueAppCertificates(), issueAppCertificates()];
    const apps = ['service-payments', 'api-gateway'];
    const [serverDir, gatewayDir] = apps.map((app) => mounted(join(first, app)));
    const seen = observed();
    const url = `tcp://127.0.0.1:${await freePort()}`;
    let served = 0;
    const topUp = async (message: unknown) => ({ balance: (served += (message as TopUp).payload.amount) });
    const server = new TcpCommandBus(
      { listenUrl: url, services: {}, tls: readCommandTls(serverDir) },
      seen.log,
      seen.metrics,
      2_000,
    );
    await server.serve(WALLETS, topUp);
    const gateway = new TcpCommandBus(
      { services: { wallets: url }, tls: readCommandTls(gatewayDir) },
      seen.log,
      NO_METRICS,
      3_000,
    );
    let restarted: TcpCommandBus | undefined;
    try {
      await expect(gateway.send(new TopUp({ amount: 1 }))).resolves.toEqual({ balance: 1 });
      expect(await server.renewTls()).toBe(false);

      for (const [index, dir] of [serverDir, gatewayDir].entries())
        cpSync(join(second, apps[index]), dir, { recursive: true });
      expect(await server.renewTls()).toBe(true);
      expect(await gateway.renewTls()).toBe(true);

      // The running server now trusts only the new CA: a peer still holding the old certificate is refused.
      const outcome = await forgedTopUp(url, 1_000, {
        ...readCommandTlsFiles(join(first, 'api-gateway')),
        ca: readCommandTlsFiles(join(second, 'api-gateway')).ca,
        checkServerIdentity: () => undefined,
      });
      expect(outcome).toHaveProperty('refused');
      expect(seen.refused).toEqual({ untrusted_certificate: 1 });

      // A service restarted on the new files: the gateway's next connection presents its renewed certificate.
      await server.close();
      // The gateway learns the old connection closed (a send in that instant is answered unavailable;
      // remote-command-bus.spec.ts).
      await new Promise((resolve) => setTimeout(resolve, 50));
      restarted = new TcpCommandBus(
        { listenUrl: url, services: {}, tls: readCommandTls(serverDir) },
        seen.log,
        NO_METRICS,
        2_000,
      );
      await restarted.serve(WALLETS, topUp);
      await expect(gateway.send(new TopUp({ amount: 1 }))).resolves.toEqual({ balance: 2 });

      // A folder caught half-written keeps the certificate in use.
      rmSync(join(gatewayDir, 'tls.key'));
      expect(await gateway.renewTls()).toBe(false);
      expect(seen.warnings.map((warning) => warning.message)).toContain(
        'command certificate not renewed: keeping the one in use',
      );
      await expect(gateway.send(new TopUp({ amount: 1 }))).resolves.toEqual({ balance: 3 });
    } finally {
      await gateway.close();
      await server.close();
      await restarted?.close();
    }
  });
});

describe('the credentials folder', () => {
  it('names the file it cannot read', () => {
    expect(() => readCommandTls(join(foreign, 'missing'))).toThrow(/COMMANDS_TLS_DIR cannot read .*ca\.crt/);
  });

  it('refuses a key that does not belong to its certificate, without printing the key', () => {
    const mixed = mkdtempSync(join(tmpdir(), 'paygate-mixed-certs-'));
    const otherKey = readFileSync(join(issueTestCertificates(), 'tls.key'), 'utf8');
    copyFileSync(join(foreign, 'ca.crt'), join(mixed, 'ca.crt'));
    copyFileSync(join(foreign, 'tls.crt'), join(mixed, 'tls.crt'));
    writeFileSync(join(mixed, 'tls.key'), otherKey);
    let message = '';
    try {
      readCommandTls(mixed);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^invalid configuration: COMMANDS_TLS_DIR .* not a usable certificate and key/);
    const keyBody = otherKey.split('\n')[1];
    expect(message).not.toContain(keyBody);
  });
});
