/** A merchant's dashboard activity: what its users did, newest first, and only its own. */
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { DashboardActivity } from './dashboard-activity';
import { MerchantAccounts } from './merchant-accounts';
import { SecretBox } from './secret-box';

describeOnAllSqlEngines('DashboardActivity', 'dashboard_activity', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let clock = new Date('2026-11-27T10:00:00.000Z');

  beforeAll(async () => ({ db, close } = await open()));
  afterAll(() => close());

  it("lists a merchant's entries newest first, and no other merchant's", async () => {
    const merchants = await MerchantAccounts.open(db, SecretBox.fromMasterKey(SecretBox.generateMasterKey()));
    const activity = await DashboardActivity.open(db, () => clock);
    const [mine, theirs] = await Promise.all([
      merchants.create({ name: 'Kampala Books' }),
      merchants.create({ name: 'Jinja Crafts' }),
    ]);
    await activity.record(mine.merchant.id, 'owner@books.example.com', 'signingKey', '');
    clock = new Date(clock.getTime() + 1_000);
    await activity.record(mine.merchant.id, 'owner@books.example.com', 'role', 'dev@books.example.com: viewer');
    await activity.record(theirs.merchant.id, 'owner@crafts.example.com', 'apiKeys', '');

    expect(await activity.latest(mine.merchant.id, 10)).toEqual([
      {
        email: 'owner@books.example.com',
        action: 'role',
        detail: 'dev@books.example.com: viewer',
        at: '2026-11-27T10:00:01.000Z',
      },
      { email: 'owner@books.example.com', action: 'signingKey', detail: '', at: '2026-11-27T10:00:00.000Z' },
    ]);
    expect(await activity.latest(mine.merchant.id, 1)).toHaveLength(1);
  });
});
