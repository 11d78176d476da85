import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPS, UnavailableError } from '@paygate/contracts';
import { NO_METRICS } from '@paygate/metrics';
import { freePort } from '@paygate/net-guard';
import { issueAppCertificates } from '@paygate/testing';
import type { CommandBus } from '../command-bus';
import { appNamedBy, commandIdentity } from './command-identity';
import { readCommandTls } from './command-tls';
import { forgedTopUp, observed, readCommandTlsFiles, TopUp, WALLETS } from './command-test-setup';
import { TcpCommandBus } from './tcp-command-bus';

let apps: string;
const tlsOf = (app: string) => readCommandTls(join(apps, app));

beforeAll(() => {
  apps = issueAppCertificates();
});

describe('a service takes commands only from the apps its contract lets send them', () => {
  let server: CommandBus;
  let url: string;
  let balance: number;
  let seen: ReturnType<typeof observed>;
  const opened: { close(): unknown }[] = [];

  beforeEach(async () => {
    balance = 0;
    seen = observed();
    url = `tcp://127.0.0.1:${await freePort()}`;
    server = new TcpCommandBus(
      { listenUrl: url, services: {}, tls: tlsOf('service-payments') },
      seen.log,
      seen.metrics,
      2_000,
    );
    await server.serve(WALLETS, async (message) => ({ balance: (balance += (message as TopUp).payload.amount) }));
  });

  afterEach(async () => {
    for (const client of opened.splice(0)) client.close();
    await server.close();
  });

  const sender = (app: string) => {
    const bus = new TcpCommandBus({ services: { wallets: url }, tls: tlsOf(app) }, seen.log, NO_METRICS, 1_000);
    opened.push({ close: () => bus.close() });
    return bus;
  };

  it('runs a top-up the gateway sends', async () => {
    await expect(sender('api-gateway').send(new TopUp({ amount: 500 }))).resolves.toEqual({ balance: 500 });
    expect(seen.refused).toEqual({});
  });

  it.each(['webhook-dispatcher', 'collections', 'sandbox'])(
    'refuses a top-up from %s, whose certificate the same CA signed: no money moves, the refusal is counted and logged',
    async (app) => {
      await expect(sender(app).send(new TopUp({ amount: 999_999 }))).rejects.toBeInstanceOf(UnavailableError);
      expect(balance).toBe(0);
      expect(seen.refused.not_a_sender).toBeGreaterThanOrEqual(1);
      expect(seen.warnings[0]).toEqual({
        message: 'command connection refused: its certificate names no app allowed to send these commands',
        fields: { peer: '127.0.0.1', reason: 'not_a_sender', app },
      });
    },
  );

  it("refuses a forged frame written on a dispatcher's connection with Nest's own client", async () => {
    const { ca, cert, key } = readCommandTlsFiles(join(apps, 'webhook-dispatcher'));
    const outcome = await forgedTopUp(url, 999_999, { ca, cert, key, checkServerIdentity: () => undefined });
    expect(outcome).toHaveProperty('refused');
    expect(balance).toBe(0);
    expect(seen.refused).toEqual({ not_a_sender: 1 });
  });
});

describe('a sender talks only to the app that serves the service', () => {
  it('never sends a top-up to another Paygate app posing as service-payments', async () => {
    const url = `tcp://127.0.0.1:${await freePort()}`;
    let impostorRan = false;
    const impostor = new TcpCommandBus(
      { listenUrl: url, services: {}, tls: tlsOf('webhook-dispatcher') },
      observed().log,
      NO_METRICS,
      2_000,
    );
    await impostor.serve(WALLETS, async () => {
      impostorRan = true;
      return { balance: 0 };
    });
    const gateway = new TcpCommandBus(
      { services: { wallets: url }, tls: tlsOf('api-gateway') },
      observed().log,
      NO_METRICS,
      1_000,
    );
    try {
      await expect(gateway.send(new TopUp({ amount: 500 }))).rejects.toBeInstanceOf(UnavailableError);
      expect(impostorRan).toBe(false);
    } finally {
      await gateway.close();
      await impostor.close();
    }
  });
});

describe('the app a certificate names', () => {
  it('is read from scripts/certs.sh --apps: one certificate per app, each naming its app, all from one CA', () => {
    const ca = new X509Certificate(readFileSync(join(apps, 'ca.crt')));
    for (const app of APPS) {
      const certificate = new X509Certificate(readFileSync(join(apps, app, 'tls.crt')));
      expect({
        app,
        named: appNamedBy({ subjectaltname: certificate.subjectAltName }),
        signed: certificate.verify(ca.publicKey),
      }).toEqual({
        app,
        named: app,
        signed: true,
      });
    }
  });

  it.each([
    ['no names', undefined],
    ['names without a Paygate URI', 'DNS:localhost, IP Address:127.0.0.1'],
    ['two Paygate URIs', `URI:${commandIdentity('api-gateway')}, URI:${commandIdentity('collections')}`],
    ['another trust domain', 'URI:spiffe://example.org/api-gateway'],
    ['a quoted name holding a separator', `URI:"${commandIdentity('api-gateway')}, DNS:x"`],
    ['a path below the app', `URI:${commandIdentity('api-gateway/extra')}`],
  ])('is none for a certificate with %s', (_case, subjectaltname) => {
    expect(appNamedBy({ subjectaltname })).toBeUndefined();
  });
});
