import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardUsers, MerchantAccounts } from '@paygate/merchants';
import { readCookie, SESSION_COOKIE } from './cookies';
import type { DashboardConfig } from './dashboard-config';
import { field, redirect, sendPage, type Form } from './responses';
import { may, type DashboardAction } from './roles';
import { problemPage, type Chrome, type SignedIn } from './views/layout';

/**
 * The signed-in side of every page and action: the session from its cookie, and for an action
 * also the session's CSRF token, the role's permission and an active merchant. Each answers for itself (to sign-in,
 * or 403) and returns null when it did.
 */
export class DashboardSessions {
  constructor(
    private readonly users: DashboardUsers,
    private readonly merchants: MerchantAccounts,
    private readonly config: DashboardConfig,
  ) {}

  async current(request: FastifyRequest): Promise<SignedIn | null> {
    const sessionId = readCookie(request, SESSION_COOKIE);
    return sessionId ? this.users.session(sessionId) : null;
  }

  chrome(signedIn: SignedIn, current: string): Chrome {
    return { signedIn, current, sandbox: this.config.sandbox };
  }

  /** A page: its chrome, or a redirect to sign-in. */
  async page(request: FastifyRequest, reply: FastifyReply, current: string): Promise<Chrome | null> {
    const signedIn = await this.current(request);
    if (!signedIn) {
      redirect(reply, '/dashboard/sign-in');
      return null;
    }
    return this.chrome(signedIn, current);
  }

  /** An action: allowed to this session's role and posted from one of its pages, or answered here. */
  async action(
    request: FastifyRequest,
    reply: FastifyReply,
    form: Form,
    action: DashboardAction,
    current: string,
  ): Promise<Chrome | null> {
    const signedIn = await this.current(request);
    if (!signedIn) {
      redirect(reply, '/dashboard/sign-in');
      return null;
    }
    const chrome = this.chrome(signedIn, current);
    if (field(form, '_csrf') !== signedIn.csrfToken) {
      sendPage(reply, 403, problemPage('This form expired', 'Reload the page and try again.', chrome));
      return null;
    }
    if (!may(signedIn.user.role, action)) {
      const message = `A ${signedIn.user.role} cannot do this. Ask an owner of this merchant if you need to.`;
      sendPage(reply, 403, problemPage('Not allowed', message, chrome));
      return null;
    }
    // As the merchant API answers a suspended merchant 403: its dashboard still reads, but acts no more.
    if ((await this.merchants.get(signedIn.user.merchantId))?.status !== 'active') {
      const message = 'This merchant account is suspended: its pages can be read, but nothing can be changed or sent.';
      sendPage(reply, 403, problemPage('Account suspended', message, chrome));
      return null;
    }
    return chrome;
  }
}
