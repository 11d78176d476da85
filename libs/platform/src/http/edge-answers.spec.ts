import { Controller, Delete, Get, Module, Post } from '@nestjs/common';
import { parseResponses, rawConnection, startTestApp, type TestApp } from '../platform-test-app';
import { expectClosingError } from './http-test-setup';

/*
 * Issue 17: answers HTTP gives before any route runs, in the envelope and with x-request-id like
 * every other answer: a known path asked with another method (405 with Allow), an Expect the
 * server cannot meet (417), an HTTP/1.1 request without Host (400). The app listens on loopback.
 */
@Controller('test/things')
class ThingsController {
  @Post()
  create() {
    return { created: true };
  }

  @Get(':id')
  read() {
    return { read: true };
  }

  @Delete(':id')
  remove() {
    return { removed: true };
  }
}

@Module({ controllers: [ThingsController] })
class ThingsFeature {}

const allowed = (header: string | null) => header?.split(', ').sort();

describe('answers at the HTTP edge', () => {
  let server: TestApp;

  beforeAll(async () => {
    server = await startTestApp([ThingsFeature]);
  });

  afterAll(async () => {
    await server.app.close();
    await server.infrastructure.close();
  });

  describe('a known path asked with another method', () => {
    it.each([
      ['PUT', '/test/things/42', ['DELETE', 'GET', 'HEAD']],
      ['PATCH', '/test/things/42?x=1', ['DELETE', 'GET', 'HEAD']],
      ['GET', '/test/things', ['POST']],
      ['OPTIONS', '/test/things', ['POST']],
    ])('%s %s answers 405 in the envelope, Allow naming what the path serves', async (method, path, methods) => {
      const response = await fetch(`${server.url}${path}`, { method });
      expect(response.status).toBe(405);
      expect(allowed(response.headers.get('allow'))).toEqual(methods);
      expect(response.headers.get('x-request-id')).toEqual(expect.any(String));
      expect(await response.json()).toEqual({
        code: 405,
        status: 'error',
        message: expect.stringContaining(`${method} is not served at this path`),
        data: {},
      });
    });

    it('answers HEAD wherever GET is served, and 405 with Allow where it is not', async () => {
      expect((await fetch(`${server.url}/test/things/42`, { method: 'HEAD' })).status).toBe(200);
      const head = await fetch(`${server.url}/test/things`, { method: 'HEAD' });
      expect(head.status).toBe(405);
      expect(head.headers.get('allow')).toBe('POST');
    });

    it('leaves a path no route serves a 404 in the envelope, without Allow', async () => {
      const response = await fetch(`${server.url}/test/nothing-here`, { method: 'PUT' });
      expect(response.status).toBe(404);
      expect(response.headers.get('allow')).toBeNull();
      expect(await response.json()).toEqual({ code: 404, status: 'error', message: expect.any(String), data: {} });
    });
  });

  describe('requests Node would refuse bare', () => {
    const exchange = async (request: string) => {
      const connection = await rawConnection(server.port);
      connection.socket.write(request);
      return parseResponses(await connection.closed);
    };

    it('answers an Expect other than 100-continue with 417 in the envelope, echoing x-request-id, and closes', async () => {
      const responses = await exchange(
        'POST /test/things HTTP/1.1\r\nhost: test\r\nexpect: 200-ok\r\nx-request-id: edge-417\r\ncontent-length: 2\r\n\r\n',
      );
      const response = expectClosingError(responses, 417, 'the only expectation served is Expect: 100-continue');
      expect(response.headers['x-request-id']).toBe('edge-417');
    });

    it('still serves Expect: 100-continue', async () => {
      const responses = await exchange(
        'POST /test/things HTTP/1.1\r\nhost: test\r\nexpect: 100-continue\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
      );
      expect(responses.map((response) => response.status)).toEqual([100, 201]);
      expect(JSON.parse(responses[1].body)).toEqual({ created: true });
    });

    it('answers an HTTP/1.1 request without Host with 400 in the envelope, with an x-request-id, and closes', async () => {
      const responses = await exchange('GET /test/things/42 HTTP/1.1\r\n\r\n');
      const response = expectClosingError(responses, 400, 'an HTTP/1.1 request must carry a Host header');
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('serves an HTTP/1.0 request without Host, which HTTP allows', async () => {
      const [response] = await exchange('GET /test/things/42 HTTP/1.0\r\n\r\n');
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ read: true });
    });
  });
});
