import 'reflect-metadata';
import { runApp } from '@paygate/platform';
import { WebhooksServiceModule } from '@paygate/webhooks-service';

void runApp('webhook-dispatcher', [WebhooksServiceModule]);
