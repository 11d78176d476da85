import 'reflect-metadata';
import { DashboardModule } from '@paygate/gateway-dashboard';
import { GatewayHttpModule } from '@paygate/gateway-http';
import { runApp } from '@paygate/platform';

void runApp('api-gateway', [GatewayHttpModule, DashboardModule]);
