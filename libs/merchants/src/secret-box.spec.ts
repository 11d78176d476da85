/**
 * Merchant secrets at rest: what MASTER_KEY seals only MASTER_KEY opens, and a stored value that
 * was changed is refused rather than opened into another key.
 */
import { ConfigError, Secret } from '@paygate/config';
import { SecretBox, secretBoxFromConfig } from './secret-box';

const SECRET = 'sk_test_Zq8WbN2cVx7LmP4rT6yH1jK3dF5gS9aE0uIoQwRt';

describe('SecretBox', () => {
  const box = SecretBox.fromMasterKey(SecretBox.generateMasterKey());

  it('opens what it sealed, and the sealed text shows nothing of the secret', () => {
    const sealed = box.seal(SECRET);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(SECRET.slice(8));
    expect(box.open(sealed)).toBe(SECRET);
  });

  it('seals the same secret differently each time, so equal keys do not show as equal rows', () => {
    expect(box.seal(SECRET)).not.toBe(box.seal(SECRET));
  });

  it.each([
    ['the ciphertext', 3],
    ['the authentication tag', 2],
    ['the nonce', 1],
  ])('refuses a sealed value whose %s was changed', (_part, index) => {
    const parts = box.seal(SECRET).split('.');
    const bytes = Buffer.from(parts[index], 'base64url');
    bytes[0] ^= 1;
    parts[index] = bytes.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('cannot open what another master key sealed', () => {
    const other = SecretBox.fromMasterKey(SecretBox.generateMasterKey());
    expect(() => other.open(box.seal(SECRET))).toThrow();
  });

  it.each(['', 'v2.a.b.c', 'v1.a.b', SECRET])('refuses %j as not a sealed secret', (text) => {
    expect(() => box.open(text)).toThrow('not a sealed secret');
  });
});

describe('MASTER_KEY', () => {
  const key = Buffer.alloc(32, 7);

  it('is the same key written as 64 hex characters or as base64', () => {
    const sealed = SecretBox.fromMasterKey(key.toString('hex')).seal(SECRET);
    expect(SecretBox.fromMasterKey(key.toString('base64')).open(sealed)).toBe(SECRET);
  });

  it.each([
    ['31 bytes', Buffer.alloc(31, 7).toString('hex')],
    ['33 bytes', Buffer.alloc(33, 7).toString('base64')],
  ])('refuses a key of %s', (_length, encoded) => {
    expect(() => SecretBox.fromMasterKey(encoded)).toThrow('must be 32 bytes, as 64 hex characters or base64');
  });

  it('stops the start, naming MASTER_KEY, when it is unset or not a key', () => {
    expect(() => secretBoxFromConfig(undefined)).toThrow(ConfigError);
    expect(() => secretBoxFromConfig(undefined)).toThrow(/MASTER_KEY must be set/);
    expect(() => secretBoxFromConfig(new Secret('too-short'))).toThrow(/MASTER_KEY must be 32 bytes/);
  });

  it('from the configuration opens what the same key sealed', () => {
    const sealed = SecretBox.fromMasterKey(key.toString('hex')).seal(SECRET);
    expect(secretBoxFromConfig(new Secret(key.toString('base64'))).open(sealed)).toBe(SECRET);
  });
});
