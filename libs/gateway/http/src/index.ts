export { GatewayHttpModule } from './gateway-http.module';
export { MERCHANTS } from './tokens';
export { openApiDocument } from './openapi';
