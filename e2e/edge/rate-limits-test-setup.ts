/**
 * Shared by the rate-limit specs (rate-limits.*.spec.ts): requests whose source address the
 * test chooses (any 127.0.0.0/8 address reaches the test's own listener on 127.0.0.1), and the
 * checks of a limited response.
 *
 * Test code (it uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import { request } from 'node:http';
import { ResponseValidator } from '@paygate/testing';

export interface LimitedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** One request to `url` sent from the loopback address `from`. */
export function send(
  url: string,
  options: { method?: string; from?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<LimitedAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: options.method ?? 'GET',
        localAddress: options.from ?? '127.0.0.1',
        headers: options.headers,
        agent: false,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          // Not through fetch (it cannot choose the source address), so checked against the OpenAPI document here.
          try {
            ResponseValidator.ofDocument().check(options.method ?? 'GET', url, response.statusCode ?? 0, text);
          } catch (error) {
            return reject(error);
          }
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // an HTML page or an empty body stays text
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** Statuses of `answers`, counted: `{200: 5, 429: 15}`. */
export const countStatuses = (answers: LimitedAnswer[]) =>
  answers.reduce<Record<number, number>>(
    (counts, answer) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }),
    {},
  );

/** A 429: the error envelope and the headers of draft-ietf-httpapi-ratelimit-headers-06 with Retry-After. */
export function expectLimited(answer: LimitedAnswer, limit: number, windowSeconds: number): void {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({
    code: 429,
    status: 'error',
    message: expect.stringMatching(/^too many requests: retry in \d+ s$/),
    data: { retry_after: expect.any(Number) },
  });
  const retryAfter = Number(answer.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds).toBe(true);
  expect((answer.body as { data: { retry_after: number } }).data.retry_after).toBe(retryAfter);
  expect(answer.headers['ratelimit-limit']).toBe(String(limit));
  expect(answer.headers['ratelimit-remaining']).toBe('0');
  expect(Number(answer.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(retryAfter);
  expect(Number(answer.headers['ratelimit-reset'])).toBeLessThanOrEqual(windowSeconds);
  expect(answer.headers['ratelimit-policy']).toBe(`${limit};w=${windowSeconds}`);
}
