/**
 * MODE=live moves real money: the configuration is refused when any provider it would call is the
 * sandbox's (docs/operations.md, "Test and live deployments"). MODE=test, the default, takes them all.
 */
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

/** What a live deployment's connectors look like: every provider's own URL and credentials. */
const LIVE_PROVIDERS = {
  MODE: 'live',
  MOMO_API_URL: 'https://momo.provider.example/',
  MOMO_API_USER: 'live-user',
  MOMO_API_KEY: 'live-key',
  MOMO_SUBSCRIPTION_KEY: 'live-subscription-key',
  MOMO_TARGET_ENVIRONMENT: 'mtnuganda',
  CARD_API_URL: 'https://cards.provider.example',
  CARD_SECRET_KEY: 'live-card-secret',
  BILLER_API_URL: 'https://prn.biller.example/api',
  BILLER_API_KEY: 'live-biller-key',
};

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not fail`);
}

describe('MODE', () => {
  it('is test unless set, and refuses anything but test or live', () => {
    expect(loadConfig({}).mode).toBe('test');
    expect(loadConfig(LIVE_PROVIDERS).mode).toBe('live');
    expect(refusal({ MODE: 'production' }).message).toBe(
      'invalid configuration: MODE must be one of test, live, got "production"',
    );
  });

  it('test: the sandbox in this process, the sandbox app, MTN sandbox and the sandbox credentials are all fine', () => {
    expect(loadConfig({ MODE: 'test' }).connectors.momo.apiUrl).toBeUndefined();
    expect(loadConfig({ MODE: 'test', MOMO_API_URL: 'http://sandbox:3000/sandbox/momo' }).connectors.momo.apiUrl).toBe(
      'http://sandbox:3000/sandbox/momo',
    );
  });

  describe('live refuses what is the sandbox, naming the variable', () => {
    it.each(['MOMO_API_URL', 'CARD_API_URL', 'BILLER_API_URL'])(
      '%s unset: the sandbox served in this process',
      (variable) => {
        const error = refusal({ ...LIVE_PROVIDERS, [variable]: '' });
        expect(error.variable).toBe(variable);
        expect(error.message).toBe(
          `invalid configuration: ${variable} must be set with MODE=live: unset, it is the sandbox in this process`,
        );
      },
    );

    it.each([
      ['MOMO_API_URL', 'http://sandbox:3000/sandbox/momo'],
      ['CARD_API_URL', 'https://paygate.example/sandbox/card/'],
      ['BILLER_API_URL', 'http://user:pass@10.0.0.9/sandbox'],
    ])('%s pointing at /sandbox/…: the sandbox app', (variable, url) => {
      const error = refusal({ ...LIVE_PROVIDERS, [variable]: url });
      expect(error.variable).toBe(variable);
      expect(error.message).toMatch(new RegExp(`^invalid configuration: ${variable} must not point at the sandbox`));
      expect(error.message).not.toContain('pass');
    });

    it('a provider path that merely contains the word is no sandbox', () => {
      const config = loadConfig({ ...LIVE_PROVIDERS, MOMO_API_URL: 'https://momo.example/api/sandboxes-retired' });
      expect(config.connectors.momo.apiUrl).toBe('https://momo.example/api/sandboxes-retired');
    });

    it("MOMO_TARGET_ENVIRONMENT=sandbox: MTN's sandbox", () => {
      const error = refusal({ ...LIVE_PROVIDERS, MOMO_TARGET_ENVIRONMENT: 'sandbox' });
      expect(error.variable).toBe('MOMO_TARGET_ENVIRONMENT');
    });

    it.each(['MOMO_API_USER', 'MOMO_API_KEY', 'MOMO_SUBSCRIPTION_KEY', 'CARD_SECRET_KEY', 'BILLER_API_KEY'])(
      "%s left at the sandbox's default (unset, or set to it), without showing it",
      (variable) => {
        const sandboxDefault = loadConfig({});
        const unset = refusal({ ...LIVE_PROVIDERS, [variable]: '' });
        expect(unset.variable).toBe(variable);
        expect(unset.message).toBe(
          `invalid configuration: ${variable} must be set with MODE=live: its default is the sandbox's`,
        );
        const defaults: Record<string, string> = {
          MOMO_API_USER: sandboxDefault.connectors.momo.apiUser.reveal(),
          MOMO_API_KEY: sandboxDefault.connectors.momo.apiKey.reveal(),
          MOMO_SUBSCRIPTION_KEY: sandboxDefault.connectors.momo.subscriptionKey.reveal(),
          CARD_SECRET_KEY: sandboxDefault.connectors.card.secretKey.reveal(),
          BILLER_API_KEY: sandboxDefault.connectors.biller.apiKey.reveal(),
        };
        const setToIt = refusal({ ...LIVE_PROVIDERS, [variable]: defaults[variable] });
        expect(setToIt.message).toBe(unset.message);
        expect(setToIt.message).not.toContain(defaults[variable]);
      },
    );
  });
});
