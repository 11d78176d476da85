/**
 * Issue 26: /docs's "Try it out" goes to the gateway serving it. The served OpenAPI document
 * (/openapi.json, /openapi.yaml and the one the /docs page loads) names this gateway as its
 * server: CHECKOUT_RETURN_URL, its public base URL, when set; else the host the request came to.
 */
import { request } from 'node:http';
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

/** GET `path` from `base` with this Host header (fetch does not let a caller set Host). */
function get(base: string, path: string, host?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}${path}`, { headers: host ? { host } : {} }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const servers = async (base: string, host?: string) => {
  const answer = await get(base, '/openapi.json', host);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as { servers: { url: string }[] }).servers.map((server) => server.url);
};

describe('the served OpenAPI document names the gateway serving it', () => {
  describe('without a configured public URL', () => {
    let paygate: InProcessPaygate;
    beforeAll(async () => (paygate = await startTestPaygate()));
    afterAll(() => paygate?.close());

    it('names the address and port the request came to, not 127.0.0.1:3000', async () => {
      const port = new URL(paygate.url).port;
      expect(port).not.toBe('3000');
      expect(await servers(paygate.url)).toEqual([paygate.url]);
      expect(await servers(paygate.url, `localhost:${port}`)).toEqual([`http://localhost:${port}`]);
    });

    it('the /docs page loads the same server for "Try it out", and /openapi.yaml names it too', async () => {
      const port = new URL(paygate.url).port;
      const init = await get(paygate.url, '/docs/swagger-ui-init.js', `localhost:${port}`);
      expect(init.status).toBe(200);
      expect(init.text).toContain(`"url": "http://localhost:${port}"`);
      expect(init.text).not.toContain('127.0.0.1:3000');
      expect((await get(paygate.url, '/openapi.yaml')).text).toContain(`- url: ${paygate.url}\n`);
    });

    it('a Host that is not a plain host name is not echoed: the gateway names its own address', async () => {
      expect(await servers(paygate.url, 'evil.example/"><script>')).toEqual([paygate.url]);
    });
  });

  describe('with CHECKOUT_RETURN_URL, the public base URL', () => {
    let paygate: InProcessPaygate;
    beforeAll(async () => (paygate = await startTestPaygate({ CHECKOUT_RETURN_URL: 'https://pay.example.com' })));
    afterAll(() => paygate?.close());

    it('names it whatever host the request came to', async () => {
      expect(await servers(paygate.url)).toEqual(['https://pay.example.com']);
      expect(await servers(paygate.url, 'localhost')).toEqual(['https://pay.example.com']);
    });
  });
});
