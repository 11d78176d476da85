import { GatewayHttpModule, openApiDocument } from '@paygate/gateway-http';
import { parseOptions, type Command } from './command';

const USAGE = `Usage: paygate openapi

Prints the merchant and admin API's OpenAPI 3.1 document (JSON), as a gateway serves it at
/openapi.json, generated from the gateway's controllers and DTOs. Needs no store.
npm run openapi writes it to docs/openapi.json, which lint checks.`;

export const openapiCommand: Command = {
  name: 'openapi',
  summary: 'print the OpenAPI document of the HTTP API',
  usage: USAGE,
  async run(args, io) {
    const options = parseOptions('openapi', args, {});
    if (options.help) return (io.stdout.write(USAGE + '\n'), 0);
    io.stdout.write(JSON.stringify(await openApiDocument(GatewayHttpModule), null, 2) + '\n');
    return 0;
  },
};
