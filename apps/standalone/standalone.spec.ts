import type { INestApplication } from '@nestjs/common';
import { CollectionsServiceModule } from '@paygate/collections-service';
import { GatewayHttpModule } from '@paygate/gateway-http';
import { createLogger } from '@paygate/logging';
import { createHttpApp, openInfrastructure, readPlatformConfig, type Infrastructure } from '@paygate/platform';
import { expectReady, runWiringProbe } from '@paygate/testing';
import { WebhooksServiceModule } from '@paygate/webhooks-service';

describe('standalone mode (PGlite, in-process broker)', () => {
  let app: INestApplication;
  let infrastructure: Infrastructure;
  let url: string;

  beforeAll(async () => {
    const config = readPlatformConfig({ STORE_URL: 'pglite://memory', BROKER_URL: 'inproc://' });
    const log = createLogger('standalone-test');
    infrastructure = await openInfrastructure(config, 'standalone-test', log);
    app = await createHttpApp([GatewayHttpModule, CollectionsServiceModule, WebhooksServiceModule], infrastructure, log);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    await infrastructure?.close();
  });

  it('answers live and ready', async () => {
    await expectReady(url);
  });

  it('carries a gateway request through a command and an event to the dispatcher', async () => {
    await runWiringProbe({ gateway: url, dispatcher: url });
  });

  it('rejects a bad request with a 4xx envelope and records nothing', async () => {
    const response = await fetch(`${url}/v1/probes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"note": 5}' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 400, status: 'error', message: expect.stringContaining('note'), data: {} });
    expect(await infrastructure.store.readAll({ streamPrefixes: ['probe-'] })).toHaveLength(1);
  });

  it('answers malformed JSON with a 400 envelope', async () => {
    const response = await fetch(`${url}/v1/probes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"note":' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 400, status: 'error' });
  });
});
