/**
 * Keys say the mode of the deployment that issued them (MODE): a live deployment's merchants get
 * pk_live_/sk_live_ keys, a test deployment's pk_test_/sk_test_, and a key of the other mode is
 * named as such rather than as unknown.
 */
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { keyOfOtherMode, MerchantAccounts, modeOfKey } from './merchant-accounts';
import { SecretBox } from './secret-box';

describeOnAllSqlEngines('MerchantAccounts in test and live deployments', 'merchant_key_modes', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  const box = SecretBox.fromMasterKey(SecretBox.generateMasterKey());
  beforeAll(async () => {
    ({ db, close } = await open());
  });
  afterAll(() => close());

  it('issues pk_live_/sk_live_ keys in a live deployment, at creation and at rotation', async () => {
    const live = await MerchantAccounts.open(db, box, 'live');
    const { merchant, keys } = await live.create({ name: 'Live shop' });
    expect(keys.publicKey).toMatch(/^pk_live_[A-Za-z0-9]{32}$/);
    expect(keys.secretKey).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    const rotated = await live.rotateKeys(merchant.id, ['api']);
    expect(rotated?.keys.publicKey).toMatch(/^pk_live_[A-Za-z0-9]{32}$/);
    expect(rotated?.keys.secretKey).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
  });

  it('issues pk_test_/sk_test_ keys in a test deployment, the default', async () => {
    for (const accounts of [await MerchantAccounts.open(db, box, 'test'), await MerchantAccounts.open(db, box)]) {
      const { keys } = await accounts.create({ name: 'Test shop' });
      expect(keys.publicKey).toMatch(/^pk_test_/);
      expect(keys.secretKey).toMatch(/^sk_test_/);
    }
  });
});

describe('keys of the other mode', () => {
  it('reads the mode a key was issued in', () => {
    expect(modeOfKey('pk_live_abc')).toBe('live');
    expect(modeOfKey('sk_test_abc')).toBe('test');
    expect(modeOfKey('pk_prod_abc')).toBeUndefined();
    expect(modeOfKey('live_pk_abc')).toBeUndefined();
  });

  it('names a test key sent to a live deployment, and the converse, whichever of the two keys it is', () => {
    expect(keyOfOtherMode('live', 'pk_test_abc')).toBe('a test key was sent to a live deployment');
    expect(keyOfOtherMode('live', 'pk_live_abc', 'sk_test_abc')).toBe('a test key was sent to a live deployment');
    expect(keyOfOtherMode('test', 'pk_live_abc', undefined)).toBe('a live key was sent to a test deployment');
  });

  it('has nothing to say of keys of its own mode, or of what is no key at all', () => {
    expect(keyOfOtherMode('live', 'pk_live_abc', 'sk_live_abc')).toBeUndefined();
    expect(keyOfOtherMode('test', 'pk_test_abc', undefined)).toBeUndefined();
    expect(keyOfOtherMode('live', 'nonsense', '')).toBeUndefined();
  });
});
