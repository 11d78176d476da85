/**
 * Dashboard users as the gateway keeps them: invited with a one-time link, signed in with a
 * password only its owner knows, sessions that end, and nothing in the tables that signs anyone in.
 */
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { DashboardUsers, INVITE_VALID_MS, SESSION_VALID_MS } from './dashboard-users';
import { MerchantAccounts } from './merchant-accounts';
import { SecretBox } from './secret-box';

const PASSWORD = 'correct horse battery staple';

describeOnAllSqlEngines('DashboardUsers', 'dashboard_users', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let users: DashboardUsers;
  let merchants: MerchantAccounts;
  let clock = new Date('2026-11-26T10:00:00Z');
  let sequence = 0;
  const email = () => `person${sequence++}@shop.example.com`;

  beforeAll(async () => {
    ({ db, close } = await open());
    merchants = await MerchantAccounts.open(db, SecretBox.fromMasterKey(SecretBox.generateMasterKey()));
    users = await DashboardUsers.open(db, () => clock);
  });
  afterAll(() => close());
  const merchant = async () => (await merchants.create({ name: 'Kampala Books' })).merchant.id;
  const advance = (ms: number) => (clock = new Date(clock.getTime() + ms));
  /** A sign-in that must not ask to choose an account. */
  const signIn = async (...args: Parameters<DashboardUsers['signIn']>) => {
    const result = await users.signIn(...args);
    if (result && 'choose' in result) throw new Error('the sign-in asked to choose an account');
    return result;
  };

  it('invites a user, who sets a password once with the link and then signs in', async () => {
    const merchantId = await merchant();
    const address = email();
    const invited = await users.invite(merchantId, address.toUpperCase(), 'developer');
    expect(invited).toMatchObject({
      user: { merchantId, email: address, role: 'developer', active: false },
      inviteToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: new Date(clock.getTime() + INVITE_VALID_MS).toISOString(),
    });
    expect(await signIn(address, PASSWORD)).toBeNull();
    expect(await users.invited(invited!.inviteToken)).toMatchObject({ email: address });

    expect(await users.acceptInvite(invited!.inviteToken, PASSWORD)).toMatchObject({ email: address, active: true });
    expect(await users.acceptInvite(invited!.inviteToken, 'another password entirely')).toBeNull();
    expect(await users.invited(invited!.inviteToken)).toBeNull();

    const signedIn = await signIn(address, PASSWORD);
    expect(signedIn?.user).toMatchObject({ email: address, role: 'developer' });
    expect(await users.session(signedIn!.session.id)).toEqual({
      user: signedIn!.user,
      csrfToken: signedIn!.session.csrfToken,
    });
  });

  it('refuses an invite after 24 hours, and one that was never given', async () => {
    const invited = await users.invite(await merchant(), email(), 'viewer');
    advance(INVITE_VALID_MS + 1);
    expect(await users.invited(invited!.inviteToken)).toBeNull();
    expect(await users.acceptInvite(invited!.inviteToken, PASSWORD)).toBeNull();
    expect(await users.acceptInvite('not-a-token-anyone-was-given', PASSWORD)).toBeNull();
  });

  it('signs in no one with a wrong password or an unknown email', async () => {
    const address = email();
    const invited = await users.invite(await merchant(), address, 'owner');
    await users.acceptInvite(invited!.inviteToken, PASSWORD);
    expect(await signIn(address, `${PASSWORD}!`)).toBeNull();
    expect(await signIn(email(), PASSWORD)).toBeNull();
  });

  it('ends a session at sign-out and after 12 hours', async () => {
    const address = email();
    const invited = await users.invite(await merchant(), address, 'owner');
    await users.acceptInvite(invited!.inviteToken, PASSWORD);
    const first = await signIn(address, PASSWORD);
    const second = await signIn(address, PASSWORD);
    await users.endSession(first!.session.id);
    expect(await users.session(first!.session.id)).toBeNull();
    expect(await users.session(second!.session.id)).not.toBeNull();
    advance(SESSION_VALID_MS + 1);
    expect(await users.session(second!.session.id)).toBeNull();
  });

  it("changes a user's role and removes a user, only within their merchant, ending their sessions", async () => {
    const merchantId = await merchant();
    const address = email();
    const invited = await users.invite(merchantId, address, 'viewer');
    await users.acceptInvite(invited!.inviteToken, PASSWORD);
    const signedIn = await signIn(address, PASSWORD);
    const stranger = await merchant();

    expect(await users.changeRole(stranger, invited!.user.id, 'owner')).toBeNull();
    expect(await users.changeRole(merchantId, invited!.user.id, 'developer')).toMatchObject({ role: 'developer' });
    expect((await users.session(signedIn!.session.id))?.user.role).toBe('developer');
    expect((await users.list(merchantId)).map((user) => user.email)).toEqual([address]);
    expect(await users.list(stranger)).toEqual([]);

    expect(await users.remove(stranger, invited!.user.id)).toBe(false);
    expect(await users.remove(merchantId, invited!.user.id)).toBe(true);
    expect(await users.session(signedIn!.session.id)).toBeNull();
    expect(await signIn(address, PASSWORD)).toBeNull();
  });

  it('resets a forgotten password: the old one and every session end, and a new link sets another once', async () => {
    const merchantId = await merchant();
    const address = email();
    const invited = await users.invite(merchantId, address, 'viewer');
    await users.acceptInvite(invited!.inviteToken, PASSWORD);
    const signedIn = await signIn(address, PASSWORD);

    expect(await users.resetPassword(await merchant(), invited!.user.id)).toBeNull();
    const reset = await users.resetPassword(merchantId, invited!.user.id);
    expect(reset).toMatchObject({
      user: { email: address, active: false },
      inviteToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(await users.session(signedIn!.session.id)).toBeNull();
    expect(await signIn(address, PASSWORD)).toBeNull();
    expect(await users.invited(invited!.inviteToken)).toBeNull();

    const another = `${PASSWORD} again`;
    expect(await users.acceptInvite(reset!.inviteToken, another)).toMatchObject({ active: true });
    expect(await users.acceptInvite(reset!.inviteToken, PASSWORD)).toBeNull();
    expect((await signIn(address, another))?.user.role).toBe('viewer');
  });

  it('keeps no password, invite token or session id in the clear', async () => {
    const address = email();
    const invited = await users.invite(await merchant(), address, 'owner');
    await users.acceptInvite(invited!.inviteToken, PASSWORD);
    const signedIn = await signIn(address, PASSWORD);
    const stored = JSON.stringify([
      await db.query('select * from dashboard_users'),
      await db.query('select * from dashboard_invites'),
      await db.query('select * from dashboard_sessions'),
    ]);
    for (const secret of [PASSWORD, invited!.inviteToken, signedIn!.session.id]) expect(stored).not.toContain(secret);
    expect(stored).toContain('scrypt$32768$8$1$');
  });

  describe('one email, users at several merchants', () => {
    const invitedUser = async (merchantId: string, address: string, password: string) => {
      const invited = await users.invite(merchantId, address, 'owner');
      await users.acceptInvite(invited!.inviteToken, password);
      return invited!.user;
    };

    it("lets another merchant's owner invite the email as anyone else's: nothing tells them it is used elsewhere", async () => {
      const [bookshop, bakery] = [await merchant(), await merchant()];
      const address = email();
      expect(await users.invite(bookshop, address, 'owner')).not.toBeNull();
      expect(await users.invite(bakery, address, 'viewer')).toMatchObject({
        user: { merchantId: bakery, email: address, role: 'viewer' },
      });
      // Only the merchant's own users are refused again.
      expect(await users.invite(bakery, address.toUpperCase(), 'owner')).toBeNull();
    });

    it("signs in to the account whose password it is, and to neither with another's", async () => {
      const [bookshop, bakery] = [await merchant(), await merchant()];
      const address = email();
      await invitedUser(bookshop, address, PASSWORD);
      const bakeryUser = await invitedUser(bakery, address, 'the bakery has its own password');

      expect((await signIn(address, 'the bakery has its own password'))?.user).toEqual({
        ...bakeryUser,
        active: true,
      });
      expect((await signIn(address, PASSWORD))?.user.merchantId).toBe(bookshop);
      expect(await signIn(address, 'neither of the two passwords')).toBeNull();
    });

    it('asks which account when the password opens several, and signs in to the one chosen', async () => {
      const [bookshop, bakery] = [await merchant(), await merchant()];
      const address = email();
      await invitedUser(bookshop, address, PASSWORD);
      await invitedUser(bakery, address, PASSWORD);

      expect(await users.signIn(address, PASSWORD)).toEqual({
        choose: [
          { merchantId: bookshop, merchantName: 'Kampala Books' },
          { merchantId: bakery, merchantName: 'Kampala Books' },
        ],
      });
      const chosen = await signIn(address, PASSWORD, bakery);
      expect(chosen?.user.merchantId).toBe(bakery);
      expect(await users.session(chosen!.session.id)).toMatchObject({ user: { merchantId: bakery } });
      // Choosing an account the password does not open signs in to nothing.
      expect(await signIn(address, PASSWORD, await merchant())).toBeNull();
    });
  });
});
