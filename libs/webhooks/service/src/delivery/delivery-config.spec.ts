import { jittered } from './delivery-config';

// The delivery variables are parsed with the rest of the configuration: libs/config/src/load-config.spec.ts.

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
