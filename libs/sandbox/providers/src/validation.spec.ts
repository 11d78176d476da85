/** What the simulated providers take as an amount and as a URL, as real provider APIs do. */
import { isAmount, isHttpUrl } from './validation';

describe('provider request fields', () => {
  it.each(['81000', '12.50', '0.5', '999999999999999'])('%s is an amount', (amount) => {
    expect(isAmount(amount)).toBe(true);
  });

  it.each([
    ['zero', '0'],
    ['zero with decimals', '0.00'],
    ['negative', '-5'],
    ['three decimals', '1.234'],
    ['an exponent', '1e3'],
    ['sixteen digits', '1000000000000000'],
    ['a JSON number', 81000],
  ])('%s is not an amount', (_what, amount) => {
    expect(isAmount(amount)).toBe(false);
  });

  it.each([
    ['https', 'https://shop.example.com/notify', true],
    ['http', 'http://10.0.0.5:8080/notify', true],
    ['ftp', 'ftp://shop.example.com/notify', false],
    ['a relative path', '/notify', false],
    ['not a string', 42, false],
  ])('a %s URL is taken: %s', (_what, url, taken) => {
    expect(isHttpUrl(url)).toBe(taken);
  });
});
