import type { INestApplication } from '@nestjs/common';
import { ApiResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { limitOutsideControllers } from '@paygate/platform';

/** The page (with its assets under it) and the documents, as Fastify route patterns. */
const isOpenApiRoute = (route = '') => route === '/docs' || route.startsWith('/docs/') || route === '/openapi.json' || route === '/openapi.yaml';

/**
 * GET /openapi.json and GET /docs, generated from the controllers and the DTOs that validate.
 * Plain Fastify routes, so they take their public token outside the guards.
 */
export function serveOpenApi(app: INestApplication): void {
  limitOutsideControllers(app, (request) => isOpenApiRoute(request.routeOptions.url));
  const config = new DocumentBuilder()
    .setTitle('Paygate API')
    .setDescription('Collections by mobile money and card, with signed callbacks. Amounts are JSON numbers in major units of the currency.')
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'public-key' }, 'public-key')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'secret-key' }, 'secret-key')
    .addBearerAuth()
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}

const rateLimitHeader = (description: string) => ({ description, schema: { type: 'integer' } });

/** The 429 every rate-limited route may answer (docs/security.md, Rate limits). */
export const ApiRateLimited = (bucket: string) =>
  ApiResponse({
    status: 429,
    description: `Too many requests: ${bucket} is empty; retry after Retry-After seconds. RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers-06) come with every answer of this route`,
    schema: { example: { code: 429, status: 'error', message: 'too many requests: retry in 1 s', data: { retry_after: 1 } } },
    headers: {
      'Retry-After': rateLimitHeader('seconds until a request will be accepted again'),
      'RateLimit-Limit': rateLimitHeader('capacity of the bucket (requests at once)'),
      'RateLimit-Remaining': rateLimitHeader('requests left in the bucket after this one'),
      'RateLimit-Reset': rateLimitHeader('seconds until the bucket is full again'),
      'RateLimit-Policy': { description: '`<capacity>;w=<seconds to refill from empty>`', schema: { type: 'string' } },
    },
  });
