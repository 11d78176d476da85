import 'reflect-metadata';
import { CollectionsServiceModule } from '@paygate/collections-service';
import { GatewayHttpModule } from '@paygate/gateway-http';
import { runApp } from '@paygate/platform';
import { WebhooksServiceModule } from '@paygate/webhooks-service';

/** Every app in one process on the embedded defaults: PGlite under ./data and the in-process broker. */
void runApp('standalone', [GatewayHttpModule, CollectionsServiceModule, WebhooksServiceModule], (url) => {
  process.stdout.write(`\nPaygate is running at ${url}\n  health: curl ${url}/health/ready\n  probe:  curl -X POST ${url}/v1/probes -H 'content-type: application/json' -d '{"note":"hello"}'\n\n`);
});
