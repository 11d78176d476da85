export { GatewayHttpModule } from './gateway-http.module';
export { DASHBOARD_USERS, MERCHANTS } from './tokens';
export { openApiDocument } from './openapi';
