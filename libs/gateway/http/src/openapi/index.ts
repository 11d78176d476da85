import type { INestApplication, Type } from '@nestjs/common';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { Config } from '@paygate/config';
import { APP_URL, CONFIG, limitOutsideControllers, type AppUrl } from '@paygate/platform';
import type { FastifyRequest } from 'fastify';
import { buildOpenApiDocument } from './document';

export { buildOpenApiDocument, openApiDocument } from './document';
export * from './responses';

/** The page (with its assets under it) and the documents, as Fastify route patterns. */
const isOpenApiRoute = (route = '') =>
  route === '/docs' || route.startsWith('/docs/') || route === '/openapi.json' || route === '/openapi.yaml';

/** A host name or address with an optional port: anything else in Host is not put in the document. */
const PLAIN_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * GET /openapi.json and GET /docs, generated from the gateway's controllers and DTOs (the same
 * document docs/openapi.json holds, but for `servers`). Plain Fastify routes, so they take their
 * public token outside the guards.
 */
export function serveOpenApi(app: INestApplication, gateway: Type<unknown>): void {
  limitOutsideControllers(app, (request) => isOpenApiRoute(request.routeOptions.url));
  const publicUrl = app.get<Config>(CONFIG).collections.checkoutReturnUrl;
  const appUrl = app.get<AppUrl>(APP_URL);
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app, gateway), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    // The committed document names npm start's default address; the served one names this
    // gateway, so "Try it out" and generated clients reach it whatever its PORT or public URL.
    patchDocumentOnRequest: <Incoming>(request: Incoming, _reply: unknown, document: OpenAPIObject): OpenAPIObject => ({
      ...document,
      servers: [
        { url: publicUrl ?? requestBaseUrl(request as FastifyRequest) ?? appUrl.get(), description: 'this gateway' },
      ],
    }),
  });
}

/** The base URL the client used (Host, or X-Forwarded-Host/-Proto behind TRUST_PROXY), when it is a plain host. */
function requestBaseUrl(request: FastifyRequest): string | undefined {
  const host = request.host;
  return typeof host === 'string' && PLAIN_HOST.test(host) ? `${request.protocol}://${host}` : undefined;
}
