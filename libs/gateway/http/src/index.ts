export { GatewayHttpModule } from './gateway-http.module';
