import { Secret } from '@paygate/config';
import { TEST_MASTER_KEY } from '@paygate/testing';
import { FORM_TOKEN_VALID_SECONDS, FormTokens } from './form-token';

describe("the sign-in and invite forms' token", () => {
  const tokens = FormTokens.fromMasterKey(new Secret(TEST_MASTER_KEY));

  it('is accepted when this server issued it', () => {
    expect(tokens.verify(tokens.issue())).toBe(true);
  });

  it('is accepted by another gateway with the same master key, and refused by one with another', () => {
    const token = tokens.issue();
    expect(FormTokens.fromMasterKey(new Secret(TEST_MASTER_KEY)).verify(token)).toBe(true);
    expect(FormTokens.fromMasterKey(new Secret('ab'.repeat(32))).verify(token)).toBe(false);
  });

  it('refuses a value the server never issued, however well formed', () => {
    const issued = tokens.issue();
    const [nonce, issuedAt] = issued.split('.');
    expect(tokens.verify('A'.repeat(43))).toBe(false);
    expect(tokens.verify(`${nonce}.${issuedAt}.${'A'.repeat(43)}`)).toBe(false);
    expect(tokens.verify(`${'B'.repeat(22)}.${issuedAt}.${issued.split('.')[2]}`)).toBe(false);
    expect(tokens.verify(undefined)).toBe(false);
  });

  it('refuses a token older than an hour', () => {
    const issuedAt = Date.now() - (FORM_TOKEN_VALID_SECONDS + 1) * 1_000;
    expect(tokens.verify(tokens.issue(issuedAt))).toBe(false);
    expect(tokens.verify(tokens.issue(Date.now() - 60_000))).toBe(true);
  });
});
