import type { RawResponse } from '../platform-test-app';

/** The only response before the server closed: `status` in the error envelope, saying `message`. */
export function expectClosingError(responses: RawResponse[], status: number, message: string): RawResponse {
  const [response, ...more] = responses;
  expect(more).toEqual([]);
  expect(response.status).toBe(status);
  expect(response.headers.connection).toBe('close');
  expect(JSON.parse(response.body)).toEqual({ code: status, status: 'error', message, data: {} });
  return response;
}
