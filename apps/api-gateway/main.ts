import 'reflect-metadata';
import { GatewayHttpModule } from '@paygate/gateway-http';
import { runApp } from '@paygate/platform';

void runApp('api-gateway', [GatewayHttpModule]);
