/**
 * Dashboard sign-in attempts counted in the database: two gateways on one database (two
 * SignInAttempts) count the same attempts, and an attempt ages out after the window.
 */
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { SignInAttempts } from './sign-in-attempts';

const LIMITS = { perEmail: 3, perAddress: 5, windowMs: 60_000 };

describeOnAllSqlEngines('SignInAttempts', 'sign_in_attempts', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let clock = new Date('2026-11-27T10:00:00Z');
  let gatewayA: SignInAttempts;
  let gatewayB: SignInAttempts;
  let sequence = 0;
  const address = () => `192.0.2.${sequence++}`;

  beforeAll(async () => {
    ({ db, close } = await open());
    gatewayA = await SignInAttempts.open(db, LIMITS, () => clock);
    gatewayB = await SignInAttempts.open(db, LIMITS, () => clock);
  });
  afterAll(() => close());

  it('allows perEmail attempts for one email from one address, counted across gateways', async () => {
    const from = address();
    const answers = [];
    for (const gateway of [gatewayA, gatewayB, gatewayA, gatewayB])
      answers.push(await gateway.attempt(from, 'Owner@Shop.example.com'));
    expect(answers).toEqual([true, true, true, false]);
    // The same email in other letter case is the same email; another address is counted apart.
    expect(await gatewayA.attempt(from, 'owner@shop.example.com')).toBe(false);
    expect(await gatewayA.attempt(address(), 'owner@shop.example.com')).toBe(true);
  });

  it('allows perAddress attempts from one address whichever emails are tried', async () => {
    const from = address();
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push(await (i % 2 ? gatewayA : gatewayB).attempt(from, `user${i}@shop.example.com`));
    expect(answers).toEqual([true, true, true, true, true, false]);
  });

  it('forgets attempts older than the window, and keeps only their hashes', async () => {
    const from = address();
    for (let i = 0; i < 3; i++) await gatewayA.attempt(from, 'late@shop.example.com');
    expect(await gatewayB.attempt(from, 'late@shop.example.com')).toBe(false);
    clock = new Date(clock.getTime() + LIMITS.windowMs + 1);
    expect(await gatewayB.attempt(from, 'late@shop.example.com')).toBe(true);
    const rows = await db.query<{ key: string }>('select key from dashboard_sign_in_attempts');
    expect(rows.length).toBe(2);
    expect(rows.map((row) => row.key).join(' ')).not.toMatch(/late|192\.0\.2/);
  });
});
