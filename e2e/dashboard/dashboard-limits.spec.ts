/**
 * Every dashboard route takes a token from the client address's public bucket (docs/security.md,
 * "Dashboard users"): pages, assets and forms alike answer 429 with Retry-After once it is empty.
 */
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

describe('the dashboard under the public rate limit', () => {
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    paygate = await startTestPaygate({ RATE_LIMIT_PUBLIC_BURST: '3', RATE_LIMIT_PUBLIC_PER_SECOND: '1' });
  });
  afterAll(async () => {
    await paygate?.close();
  });

  it('answers 429 with Retry-After and a page saying so to the requests after the bucket is spent, whichever dashboard route', async () => {
    const requests: Array<[string, RequestInit]> = [
      ['/dashboard/sign-in', {}],
      ['/dashboard/assets/dashboard.css', {}],
      ['/dashboard/overview', { redirect: 'manual' }],
      ['/dashboard/sign-in', {}],
      [
        '/dashboard/sign-in',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'email=a%40b.example&password=x',
        },
      ],
      ['/dashboard/collections', { redirect: 'manual' }],
    ];
    const answers = [];
    for (const [path, init] of requests) answers.push(await fetch(`${paygate.url}${path}`, init));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 303, 429, 429, 429]);
    expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThan(0);
    // A person in a browser gets a page that says so, under the dashboard's CSP, not the API's JSON.
    expect(answers[3].headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answers[3].headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await answers[3].text()).toMatch(/<h1>Too many requests<\/h1>[\s\S]*Try again in \d+ seconds/);
  });
});
