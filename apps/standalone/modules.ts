import { CollectionsServiceModule } from '@paygate/collections-service';
import { DisbursementsServiceModule } from '@paygate/disbursements-service';
import { DashboardModule } from '@paygate/gateway-dashboard';
import { GatewayHttpModule } from '@paygate/gateway-http';
import { PaymentsServiceModule } from '@paygate/payments-service';
import { SandboxProvidersModule } from '@paygate/sandbox-providers';
import { WebhooksServiceModule } from '@paygate/webhooks-service';

/** Every app's feature modules and the sandbox providers: what standalone runs in one process. */
export const STANDALONE_MODULES = [
  GatewayHttpModule,
  DashboardModule,
  CollectionsServiceModule,
  PaymentsServiceModule,
  DisbursementsServiceModule,
  WebhooksServiceModule,
  SandboxProvidersModule,
];
