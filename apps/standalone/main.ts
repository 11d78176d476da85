import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { Config } from '@paygate/config';
import { DASHBOARD_USERS, MERCHANTS } from '@paygate/gateway-http';
import type { DashboardUsers, MerchantAccounts } from '@paygate/merchants';
import { runApp } from '@paygate/platform';
import { STANDALONE_MODULES } from './modules';
import { ensureDemoMerchant, ensureDemoOwner, standaloneEnvironment } from './sandbox-setup';

/**
 * Every app and the sandbox providers in one process on the embedded defaults: PGlite under ./data, in-process broker.
 */
const { env, secrets } = standaloneEnvironment(process.env);

/** Said when HOST opens the port beyond loopback: the banner's URL is this machine's, not the only way in. */
function exposure(host: string): string[] {
  if (host === '127.0.0.1' || host === '::1') return [];
  const where = host === '0.0.0.0' || host === '::' ? 'every network interface' : host;
  return [`  listening on ${where} (HOST=${host}): reachable from the network, not only this machine`];
}

async function welcome(url: string, app: INestApplication, config: Config): Promise<void> {
  const demo = await ensureDemoMerchant(app.get<MerchantAccounts>(MERCHANTS), secrets.file);
  const owner = await ensureDemoOwner(app.get<DashboardUsers>(DASHBOARD_USERS), demo.id, secrets.file);
  const keys = `-H 'public-key: ${demo.keys.publicKey}'`;
  process.stdout.write(
    [
      '',
      `Paygate is running at ${url}`,
      ...exposure(config.platform.host),
      `  API docs:     ${url}/docs`,
      `  dashboard:    ${url}/dashboard`,
      owner.password
        ? `    sign in as ${owner.email}, password ${owner.password}`
        : `    sign in as ${owner.email} (its password is no longer in ${secrets.file})`,
      `  admin token:  from ${secrets.adminTokenSource}`,
      `  demo merchant ${demo.id}`,
      `    public-key:  ${demo.keys.publicKey}`,
      `    secret-key:  ${demo.keys.secretKey}`,
      `    signing key: ${demo.keys.signingKey}`,
      '',
      '  Collect UGX 81,000 by MTN mobile money (test number 256772000001 approves):',
      `    curl -X POST ${url}/v1/collections/initialize -H 'content-type: application/json' ${keys} \\`,
      `      -d '{"merchant_reference":"auto","transaction_method":"MOBILE_MONEY","provider_code":"mtn_momo_ug","currency":"UGX","amount":81000,"msisdn":"256772000001","customer_name":"Jane Doe"}'`,
      `    curl -X POST ${url}/v1/collections/confirm -H 'content-type: application/json' ${keys} -d '{"internal_reference":"<from the answer>"}'`,
      `    curl ${url}/v1/collections/<internal_reference> ${keys} -H 'secret-key: ${demo.keys.secretKey}'`,
      '',
    ].join('\n') + '\n',
  );
}

void runApp('standalone', STANDALONE_MODULES, {
  env,
  onListening: welcome,
});
