import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { ClientTCP } from '@nestjs/microservices';
import { firstValueFrom, timeout } from 'rxjs';
import { PaygateClient, topUpWallet, walletShows } from '@paygate/testing';
import { localCommandTlsDir } from '@paygate/tools-local';
import type { AppProcess } from './processes';

/**
 * What anyone on the network could try: Nest's own TCP client, with no credentials or with
 * `tlsOptions`, sending service-payments the top-up command that mints wallet money.
 */
async function forgedTopUp(
  commandsUrl: string,
  merchantId: string,
  tlsOptions?: ConnectionOptions,
): Promise<{ answered: unknown } | { refused: string }> {
  const { hostname, port } = new URL(commandsUrl);
  const client = new ClientTCP({ host: hostname, port: Number(port), ...(tlsOptions && { tlsOptions }) });
  const envelope = {
    service: 'payments',
    command: 'payments.topUp',
    payload: { merchantId, currency: 'UGX', amount: 999_999, reference: 'forged-top-up' },
  };
  try {
    await client.connect();
    return { answered: await firstValueFrom(client.send('paygate.command.v1', envelope).pipe(timeout(5_000))) };
  } catch (error) {
    return { refused: String(error) };
  } finally {
    client.close();
  }
}

/**
 * Runs inside the distributed suite: `layout()` gives its gateway, its service-payments and that app's command address.
 */
export function forgedCommandsSuite(
  layout: () => { gateway: string; servicePayments: AppProcess; paymentsCommandsUrl: string },
): void {
  it('a command sent to a service without a certificate from the private CA is refused: no money moves, the refusal is logged and counted', async () => {
    const { gateway, servicePayments, paymentsCommandsUrl } = layout();
    const client = await PaygateClient.withNewMerchant(gateway);
    expect(await forgedTopUp(paymentsCommandsUrl, client.merchant.id)).toHaveProperty('refused');

    // The admin API's top-up is the only one that lands: had the forged one run, the wallet would hold 1,004,999.
    await topUpWallet(gateway, client.merchant.id, 5_000);
    await walletShows(client, { balance: 5_000, available_balance: 5_000 }, 'the admin top-up alone');

    const metrics = await (await fetch(`${servicePayments.url}/metrics`)).text();
    expect(metrics).toMatch(/^paygate_command_connections_refused_total\{reason="not_tls"\} [1-9]/m);
    expect(servicePayments.output()).toMatch(
      /"message":"command connection refused: no certificate from the private CA".*"reason":"not_tls"/,
    );
  });

  it("a top-up sent with the webhook-dispatcher's own certificate is refused too: only the gateway may send service-payments commands", async () => {
    const { gateway, servicePayments, paymentsCommandsUrl } = layout();
    const client = await PaygateClient.withNewMerchant(gateway);
    const dispatcher = localCommandTlsDir('webhook-dispatcher');
    const [ca, cert, key] = ['ca.crt', 'tls.crt', 'tls.key'].map((file) => readFileSync(join(dispatcher, file)));
    const tlsOptions = { ca, cert, key, checkServerIdentity: () => undefined };
    expect(await forgedTopUp(paymentsCommandsUrl, client.merchant.id, tlsOptions)).toHaveProperty('refused');

    await topUpWallet(gateway, client.merchant.id, 5_000);
    await walletShows(client, { balance: 5_000, available_balance: 5_000 }, 'the admin top-up alone');
    const metrics = await (await fetch(`${servicePayments.url}/metrics`)).text();
    expect(metrics).toMatch(/^paygate_command_connections_refused_total\{reason="not_a_sender"\} [1-9]/m);
    expect(servicePayments.output()).toMatch(/"reason":"not_a_sender","app":"webhook-dispatcher"/);
  });
}
