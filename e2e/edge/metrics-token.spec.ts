/**
 * GET /metrics with METRICS_TOKEN set: Prometheus scrapes it with the bearer token; anyone
 * else gets a 401 in the envelope and no figure.
 */
import { TEST_MASTER_KEY } from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';

const METRICS_TOKEN = 'metrics-token-for-the-spec-0123';

describe('GET /metrics behind METRICS_TOKEN', () => {
  let paygate: InProcessPaygate;

  beforeAll(async () => {
    paygate = await startInProcess({ MASTER_KEY: TEST_MASTER_KEY, METRICS_TOKEN, LOG_LEVEL: 'error' });
  });

  afterAll(async () => {
    await paygate?.close();
  });

  it.each([
    ['no authorization header', undefined],
    ['another token', 'Bearer metrics-token-for-the-spec-9999'],
    ['the token without the Bearer scheme', METRICS_TOKEN],
    ['the token as a basic credential', `Basic ${Buffer.from(`prometheus:${METRICS_TOKEN}`).toString('base64')}`],
  ])('refuses a scrape with %s: 401 in the envelope, asking for a bearer token', async (_case, authorization) => {
    const response = await fetch(`${paygate.url}/metrics`, {
      headers: authorization === undefined ? {} : { authorization },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      code: 401,
      status: 'error',
      message: 'a valid metrics bearer token is required (METRICS_TOKEN)',
      data: {},
    });
    expect(body).not.toContain('paygate_');
  });

  it('serves the figures to a scrape with the token, whatever the case of the scheme', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const response = await fetch(`${paygate.url}/metrics`, {
        headers: { authorization: `${scheme} ${METRICS_TOKEN}` },
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/^# HELP process_cpu_user_seconds_total /m);
    }
  });

  it('leaves the health probes open, as the kubelet calls them without credentials', async () => {
    expect((await fetch(`${paygate.url}/health/live`)).status).toBe(200);
  });
});
