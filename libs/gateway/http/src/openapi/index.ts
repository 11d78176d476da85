import type { INestApplication, Type } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { limitOutsideControllers } from '@paygate/platform';
import { buildOpenApiDocument } from './document';

export { buildOpenApiDocument, openApiDocument } from './document';
export * from './responses';

/** The page (with its assets under it) and the documents, as Fastify route patterns. */
const isOpenApiRoute = (route = '') => route === '/docs' || route.startsWith('/docs/') || route === '/openapi.json' || route === '/openapi.yaml';

/**
 * GET /openapi.json and GET /docs, generated from the gateway's controllers and DTOs (the same
 * document docs/openapi.json holds). Plain Fastify routes, so they take their public token outside the guards.
 */
export function serveOpenApi(app: INestApplication, gateway: Type<unknown>): void {
  limitOutsideControllers(app, (request) => isOpenApiRoute(request.routeOptions.url));
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app, gateway), { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}
