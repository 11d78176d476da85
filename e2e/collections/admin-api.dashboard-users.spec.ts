/**
 * The admin API's dashboard invites (docs/security.md, "Dashboard users"): POST
 * /admin/v1/merchants/{id}/users against one in-process Paygate on PGlite.
 */
import { expectEnvelope, expectFieldErrors, useApiPaygate } from './api-test-setup';

describe('admin API: dashboard users', () => {
  const { api, admin } = useApiPaygate();
  let sequence = 0;
  const email = () => `person${sequence++}-${Date.now().toString(36)}@shop.example.com`;

  it('invites a person with a role (201): a one-time link on the address the admin called, shown once', async () => {
    const address = email();
    const answer = await admin('POST', `/${api.client.merchant.id}/users`, { email: address, role: 'viewer' });
    expectEnvelope(answer, 201);
    expect(answer.body.data).toEqual({
      user_id: expect.stringMatching(/^usr_[A-Za-z0-9_-]{16}$/),
      email: address,
      role: 'viewer',
      invite_url: expect.stringMatching(
        /^http:\/\/(127\.0\.0\.1|localhost):\d+\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/,
      ),
      invite_expires_at: expect.any(String),
    });
    const { invite_url: url, invite_expires_at: expiresAt } = answer.body.data as Record<string, string>;
    expect(url.startsWith(api.paygate.url)).toBe(true);
    const validFor = Date.parse(expiresAt) - Date.now();
    expect(validFor).toBeGreaterThan(23.9 * 3_600_000);
    expect(validFor).toBeLessThanOrEqual(24 * 3_600_000);
    const token = url.split('/').pop()!;
    const stored = JSON.stringify(await api.paygate.infrastructure.sql.query('select * from dashboard_invites'));
    expect(stored).not.toContain(token);
  });

  it('answers 409 for an email that already has a user of the merchant, whatever its case; another merchant may invite it', async () => {
    const address = email();
    expectEnvelope(await admin('POST', `/${api.client.merchant.id}/users`, { email: address, role: 'owner' }), 201);
    expectEnvelope(
      await admin('POST', `/${api.client.merchant.id}/users`, { email: address.toUpperCase(), role: 'viewer' }),
      409,
    );
    // One person may work for two merchants: they choose the account when signing in.
    expectEnvelope(
      await admin('POST', `/${api.other.merchant.id}/users`, { email: address.toUpperCase(), role: 'owner' }),
      201,
    );
  });

  it.each([
    [{ email: 'not-an-email', role: 'owner' }, ['email']],
    [{ email: 'a@b.example', role: 'admin' }, ['role']],
    [{ role: 'viewer' }, ['email']],
    [{ email: `${'a'.repeat(250)}@b.example`, role: 'viewer' }, ['email']],
    [{ email: 'nul\u0000@b.example', role: 'viewer' }, ['email']],
  ])('refuses %j with 400 naming the field', async (body, fields) => {
    expectFieldErrors(await admin('POST', `/${api.client.merchant.id}/users`, body), fields);
  });

  it('answers 404 for an unknown merchant and 401 without the admin token', async () => {
    expectEnvelope(await admin('POST', '/mer_unknown000000000/users', { email: email(), role: 'viewer' }), 404);
    expectEnvelope(
      await admin('POST', `/${api.client.merchant.id}/users`, { email: email(), role: 'viewer' }, ''),
      401,
    );
  });
});
