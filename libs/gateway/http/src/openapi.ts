import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** GET /openapi.json and GET /docs, generated from the controllers and the DTOs that validate. */
export function serveOpenApi(app: INestApplication): void {
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
