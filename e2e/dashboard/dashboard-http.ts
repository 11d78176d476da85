/** The dashboard over HTTP as a browser without JavaScript uses it: a cookie jar, and forms posted as browsers post them. */
export interface Page {
  status: number;
  text: string;
  location: string | null;
  headers: Headers;
}

/** A browser's cookie jar for one origin, and form posts as a browser sends them. */
export class Browser {
  private readonly cookies = new Map<string, string>();
  readonly setCookies: string[] = [];

  constructor(private readonly base: string) {}

  async get(path: string): Promise<Page> {
    return this.request(path, { method: 'GET' });
  }

  async post(path: string, form: Record<string, string>): Promise<Page> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  forget(name: string): void {
    this.cookies.delete(name);
  }

  private async request(path: string, init: RequestInit): Promise<Page> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, this.base), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie && { cookie }) },
    });
    for (const header of response.headers.getSetCookie()) {
      this.setCookies.push(header);
      const [pair] = header.split(';');
      const [name, ...value] = pair.split('=');
      if (/Max-Age=0/.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
    return {
      status: response.status,
      text: await response.text(),
      location: response.headers.get('location'),
      headers: response.headers,
    };
  }
}

export const csrfOf = (page: Page) => /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
export const PASSWORD = 'a long enough passphrase';

let invited = 0;

/** A dashboard user invited through the admin API: their email and one-time invite link. */
export async function inviteUser(
  baseUrl: string,
  adminToken: string,
  merchantId: string,
  role: 'owner' | 'developer' | 'viewer' = 'owner',
): Promise<{ email: string; url: string }> {
  const email = `user${invited++}-${Date.now().toString(36)}@shop.example.com`;
  const response = await fetch(`${baseUrl}/admin/v1/merchants/${merchantId}/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ email, role }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { invite_url: string } };
  return { email, url: data.invite_url };
}

/** An invited user who set their password, and a browser signed in as them. */
export async function signedInUser(
  baseUrl: string,
  adminToken: string,
  merchantId: string,
  role: 'owner' | 'developer' | 'viewer' = 'owner',
): Promise<{ email: string; browser: Browser }> {
  const { email, url } = await inviteUser(baseUrl, adminToken, merchantId, role);
  const browser = new Browser(baseUrl);
  const form = await browser.get(url);
  expect((await browser.post(url, { _csrf: csrfOf(form), password: PASSWORD })).status).toBe(303);
  const signIn = await browser.get('/dashboard/sign-in');
  const answer = await browser.post('/dashboard/sign-in', { _csrf: csrfOf(signIn), email, password: PASSWORD });
  expect(answer).toMatchObject({ status: 303, location: '/dashboard/overview' });
  return { email, browser };
}
