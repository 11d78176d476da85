/**
 * Merchant accounts as the gateway uses them: keys issued once, requests authenticated by public
 * and secret key, and changes (new keys, suspension) applied at once by the instance that made them.
 */
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { MerchantAccounts } from './merchant-accounts';
import { SecretBox } from './secret-box';

describeOnAllSqlEngines('MerchantAccounts', 'merchants', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let accounts: MerchantAccounts;
  beforeAll(async () => {
    ({ db, close } = await open());
    accounts = await MerchantAccounts.open(db, SecretBox.fromMasterKey(SecretBox.generateMasterKey()));
  });
  afterAll(() => close());

  const create = (name = 'Kampala Books') =>
    accounts.create({ name, collectionCallbackUrl: 'https://shop.example.com/collections' });

  it('issues an id and keys in the shapes the API documents, each merchant its own', async () => {
    const [first, second] = [await create(), await create()];
    expect(first.merchant.id).toMatch(/^mer_[A-Za-z0-9]{16}$/);
    expect(first.keys).toEqual({
      publicKey: expect.stringMatching(/^pk_test_[A-Za-z0-9]{32}$/),
      secretKey: expect.stringMatching(/^sk_test_[A-Za-z0-9]{40}$/),
      signingKey: expect.stringMatching(/^[A-Za-z0-9]{48}$/),
    });
    expect(first.merchant).toMatchObject({
      status: 'active',
      publicKey: first.keys.publicKey,
      servicePaymentsCallbackUrl: null,
      payoutsCallbackUrl: null,
    });
    expect(second.merchant.id).not.toBe(first.merchant.id);
    expect(Object.values(second.keys)).not.toEqual(expect.arrayContaining(Object.values(first.keys)));
  });

  it('stores the secret and signing keys only sealed, and gives them back in clear to their owner', async () => {
    const { merchant, keys } = await create();
    const [row] = await db.query('select * from merchants where id = $1', [merchant.id]);
    expect(JSON.stringify(row)).not.toContain(keys.secretKey);
    expect(JSON.stringify(row)).not.toContain(keys.signingKey);
    expect(await accounts.keys(merchant.id)).toEqual(keys);
  });

  describe('authenticate', () => {
    it('finds the merchant by public key alone, and with its secret key', async () => {
      const { merchant, keys } = await create();
      expect(await accounts.authenticate(keys.publicKey)).toEqual(merchant);
      expect(await accounts.authenticate(keys.publicKey, keys.secretKey)).toEqual(merchant);
    });

    it("refuses an unknown public key, a wrong secret key, and another merchant's secret key", async () => {
      const [mine, theirs] = [await create(), await create()];
      expect(await accounts.authenticate('pk_test_unknown')).toBeNull();
      expect(await accounts.authenticate(mine.keys.publicKey, `${mine.keys.secretKey}x`)).toBeNull();
      expect(await accounts.authenticate(mine.keys.publicKey, '')).toBeNull();
      expect(await accounts.authenticate(mine.keys.publicKey, theirs.keys.secretKey)).toBeNull();
    });
  });

  describe('update', () => {
    it('changes only what the patch names; null removes a callback URL', async () => {
      const { merchant } = await create();
      const withPayments = await accounts.update(merchant.id, {
        servicePaymentsCallbackUrl: 'https://shop.example.com/payments',
      });
      expect(withPayments).toMatchObject({
        collectionCallbackUrl: 'https://shop.example.com/collections',
        servicePaymentsCallbackUrl: 'https://shop.example.com/payments',
        status: 'active',
      });
      const without = await accounts.update(merchant.id, { collectionCallbackUrl: null });
      expect(without).toMatchObject({
        collectionCallbackUrl: null,
        servicePaymentsCallbackUrl: 'https://shop.example.com/payments',
      });
      expect(await accounts.get(merchant.id)).toEqual(without);
    });

    it('payout limits: UGX 5,000,000 for approval and no daily cap until set; null removes either', async () => {
      const { merchant } = await create();
      expect(merchant).toMatchObject({ payoutApprovalThreshold: 5_000_000, payoutDailyCap: null });
      const limited = await accounts.update(merchant.id, {
        payoutApprovalThreshold: 1_000_000,
        payoutDailyCap: 9_000_000,
      });
      expect(limited).toMatchObject({ payoutApprovalThreshold: 1_000_000, payoutDailyCap: 9_000_000 });
      const unchanged = await accounts.update(merchant.id, { status: 'active' });
      expect(unchanged).toMatchObject({ payoutApprovalThreshold: 1_000_000, payoutDailyCap: 9_000_000 });
      const lifted = await accounts.update(merchant.id, { payoutApprovalThreshold: null, payoutDailyCap: null });
      expect(lifted).toMatchObject({ payoutApprovalThreshold: null, payoutDailyCap: null });
    });

    it('keeps the payouts callback URL apart from the other two: set, changed and removed on its own', async () => {
      const { merchant } = await accounts.create({
        name: 'Payouts',
        collectionCallbackUrl: 'https://shop.example.com/collections',
        payoutsCallbackUrl: 'https://shop.example.com/payouts',
      });
      expect(merchant).toMatchObject({
        servicePaymentsCallbackUrl: null,
        payoutsCallbackUrl: 'https://shop.example.com/payouts',
      });
      expect(
        await accounts.update(merchant.id, { payoutsCallbackUrl: 'https://shop.example.com/payouts/v2' }),
      ).toMatchObject({
        collectionCallbackUrl: 'https://shop.example.com/collections',
        payoutsCallbackUrl: 'https://shop.example.com/payouts/v2',
      });
      expect(await accounts.update(merchant.id, { collectionCallbackUrl: null })).toMatchObject({
        payoutsCallbackUrl: 'https://shop.example.com/payouts/v2',
      });
      expect(await accounts.update(merchant.id, { payoutsCallbackUrl: null })).toMatchObject({
        payoutsCallbackUrl: null,
      });
    });

    it('shows a suspension to the next authentication, although the merchant was just looked up', async () => {
      const { merchant, keys } = await create();
      expect((await accounts.authenticate(keys.publicKey))?.status).toBe('active');
      await accounts.update(merchant.id, { status: 'suspended' });
      expect((await accounts.authenticate(keys.publicKey, keys.secretKey))?.status).toBe('suspended');
    });

    it('answers null for an unknown merchant', async () => {
      expect(await accounts.update('mer_unknown', { status: 'suspended' })).toBeNull();
      expect(await accounts.get('mer_unknown')).toBeNull();
    });
  });

  describe('rotateKeys', () => {
    it('api: new public and secret keys; the old public key stops working at once, the signing key stays', async () => {
      const { merchant, keys } = await create();
      expect(await accounts.authenticate(keys.publicKey, keys.secretKey)).not.toBeNull();
      const rotated = await accounts.rotateKeys(merchant.id, ['api']);
      expect(rotated?.keys.signingKey).toBe(keys.signingKey);
      expect(rotated?.keys.publicKey).not.toBe(keys.publicKey);
      expect(rotated?.keys.secretKey).not.toBe(keys.secretKey);
      expect(await accounts.authenticate(keys.publicKey)).toBeNull();
      expect(await accounts.authenticate(rotated!.keys.publicKey, keys.secretKey)).toBeNull();
      expect(await accounts.authenticate(rotated!.keys.publicKey, rotated!.keys.secretKey)).toMatchObject({
        id: merchant.id,
      });
    });

    it('signing: only the signing key changes', async () => {
      const { merchant, keys } = await create();
      const rotated = await accounts.rotateKeys(merchant.id, ['signing']);
      expect(rotated?.keys).toEqual({ ...keys, signingKey: expect.not.stringMatching(keys.signingKey) });
      expect(await accounts.keys(merchant.id)).toEqual(rotated?.keys);
      expect(await accounts.authenticate(keys.publicKey, keys.secretKey)).toMatchObject({ id: merchant.id });
    });

    it('answers null for an unknown merchant', async () => {
      expect(await accounts.rotateKeys('mer_unknown', ['api', 'signing'])).toBeNull();
    });
  });
});
