import { ConfigError } from '@paygate/platform';
import { jittered, parseDurationMs, readDeliveryConfig } from './delivery-config';

describe('readDeliveryConfig', () => {
  it('defaults to DESIGN §2: 10 s attempts, about three days of retries, no private targets', () => {
    expect(readDeliveryConfig({})).toEqual({
      timeoutMs: 10_000,
      retrySchedule: [0, 10_000, 60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
      allowPrivate: false,
      perHostConcurrency: 4,
      tickMs: 100,
    });
  });

  it('reads every variable', () => {
    expect(
      readDeliveryConfig({
        CALLBACK_TIMEOUT_MS: '300',
        CALLBACK_RETRY_SCHEDULE: '0, 50,250ms,2s,3m,1h',
        ALLOW_PRIVATE_CALLBACKS: 'true',
        CALLBACK_CONCURRENCY_PER_HOST: '2',
        DISPATCH_TICK_MS: '25',
      }),
    ).toEqual({ timeoutMs: 300, retrySchedule: [0, 50, 250, 2_000, 180_000, 3_600_000], allowPrivate: true, perHostConcurrency: 2, tickMs: 25 });
  });

  it.each([
    ['CALLBACK_TIMEOUT_MS', '10s'],
    ['CALLBACK_TIMEOUT_MS', '0'],
    ['CALLBACK_RETRY_SCHEDULE', '0s,,1m'],
    ['CALLBACK_RETRY_SCHEDULE', '10 minutes'],
    ['CALLBACK_RETRY_SCHEDULE', '-5s'],
    ['CALLBACK_RETRY_SCHEDULE', '1.5s'],
    ['ALLOW_PRIVATE_CALLBACKS', 'yes'],
    ['CALLBACK_CONCURRENCY_PER_HOST', '0'],
    ['CALLBACK_CONCURRENCY_PER_HOST', '2.5'],
    ['DISPATCH_TICK_MS', 'fast'],
  ])('%s=%j is a ConfigError naming the variable', (variable, value) => {
    const read = () => readDeliveryConfig({ [variable]: value });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(variable);
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['0', 0],
    ['750', 750],
    ['750ms', 750],
    ['10s', 10_000],
    ['5m', 300_000],
    ['24h', 86_400_000],
    [' 2s ', 2_000],
  ])('%j is %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['', 's', '1d', '1 s', '1e3', '99999999999999999999h'])('%j is malformed', (text) => expect(parseDurationMs(text)).toBeUndefined());
});

describe('jittered', () => {
  it('stays within ±10% and leaves 0 alone', () => {
    expect(jittered(1_000, () => 0)).toBe(900);
    expect(jittered(1_000, () => 1)).toBe(1_100);
    expect(jittered(0, () => 1)).toBe(0);
    for (let i = 0; i < 1_000; i++) {
      const delay = jittered(60_000);
      expect(delay).toBeGreaterThanOrEqual(54_000);
      expect(delay).toBeLessThanOrEqual(66_000);
    }
  });
});
