import { randomBytes } from 'node:crypto';
import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ListCollections, WalletBalances } from '@paygate/contracts';
import { SESSION_VALID_MS, type DashboardUser, type DashboardUsers } from '@paygate/merchants';
import { INFRASTRUCTURE, PathPatterns, type Infrastructure } from '@paygate/platform';
import { FORM_COOKIE, readCookie, SESSION_COOKIE, setCookie } from './cookies';
import { invitePage, inviteGonePage, overviewPage, signInPage } from './pages';
import type { SignInLimiter } from './sign-in-limiter';
import { STYLESHEET } from './stylesheet';
import { DASHBOARD_USERS, SIGN_IN_LIMITER } from './tokens';

/** Own scripts and styles only, no framing, forms to this origin: the pages have nothing inline. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // Invite links carry their token in the path: no page sends it on as a referrer.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
const INVITE_TOKEN = '^[A-Za-z0-9_-]{43}$';
const PASSWORD_LENGTH = { min: 12, max: 256 };
const SIGN_IN_REFUSED =
  'That email and password do not match an account, or there were too many attempts. Try again in a few minutes.';

type Form = Record<string, unknown> | undefined;
const field = (form: Form, name: string) => (typeof form?.[name] === 'string' ? (form[name] as string) : '');

function send(reply: FastifyReply, status: number, body: string): void {
  void reply.status(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
}

function redirect(reply: FastifyReply, location: string): void {
  void reply.status(303).headers(PAGE_HEADERS).header('location', location).send();
}

/**
 * The merchant dashboard's pages (ADR 0006): server-rendered HTML, forms posted and redirected,
 * sessions in an HttpOnly cookie. A form before sign-in carries a token also set as a cookie
 * (double submit); a signed-in form carries its session's CSRF token.
 */
@ApiExcludeController()
@Controller('dashboard')
export class DashboardController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(DASHBOARD_USERS) private readonly users: DashboardUsers,
    @Inject(SIGN_IN_LIMITER) private readonly limiter: SignInLimiter,
  ) {}

  @Get()
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(reply, (await this.signedIn(request)) ? '/dashboard/overview' : '/dashboard/sign-in');
  }

  @Get('assets/dashboard.css')
  stylesheet(@Res() reply: FastifyReply) {
    void reply
      .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=3600' })
      .type('text/css; charset=utf-8')
      .send(STYLESHEET);
  }

  @Get('sign-in')
  signInForm(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const welcome = (request.query as Record<string, unknown>).welcome === '1';
    send(
      reply,
      200,
      signInPage({
        csrf: this.formToken(request, reply),
        notice: welcome ? 'Your password is set. Sign in with it.' : undefined,
      }),
    );
  }

  @Post('sign-in')
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const email = field(form, 'email').trim();
    if (!this.formTokenMatches(request, form)) return this.refuseForm(request, reply);
    const allowed = this.limiter.attempt(request.ip, email);
    const signedIn = allowed ? await this.users.signIn(email, field(form, 'password')) : null;
    if (!signedIn) {
      return send(
        reply,
        allowed ? 401 : 429,
        signInPage({ csrf: this.formToken(request, reply), email, error: SIGN_IN_REFUSED }),
      );
    }
    setCookie(request, reply, SESSION_COOKIE, signedIn.session.id, SESSION_VALID_MS / 1_000);
    redirect(reply, '/dashboard/overview');
  }

  @Get('invite/:token')
  @PathPatterns({ token: INVITE_TOKEN })
  async inviteForm(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const user = await this.users.invited(token);
    if (!user) return send(reply, 410, inviteGonePage());
    send(reply, 200, invitePage({ csrf: this.formToken(request, reply), email: user.email }));
  }

  @Post('invite/:token')
  @PathPatterns({ token: INVITE_TOKEN })
  async acceptInvite(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() form: Form,
  ) {
    const user = await this.users.invited(token);
    if (!user) return send(reply, 410, inviteGonePage());
    if (!this.formTokenMatches(request, form)) return this.refuseForm(request, reply);
    const password = field(form, 'password');
    const length = [...password].length;
    if (length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max) {
      const error = `The password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long.`;
      return send(reply, 400, invitePage({ csrf: this.formToken(request, reply), email: user.email, error }));
    }
    if (!(await this.users.acceptInvite(token, password))) return send(reply, 410, inviteGonePage());
    redirect(reply, '/dashboard/sign-in?welcome=1');
  }

  @Post('sign-out')
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const sessionId = readCookie(request, SESSION_COOKIE);
    const signedIn = await this.signedIn(request);
    if (signedIn && field(form, '_csrf') !== signedIn.csrfToken) return this.refuseForm(request, reply);
    if (sessionId) await this.users.endSession(sessionId);
    setCookie(request, reply, SESSION_COOKIE, '', 0);
    redirect(reply, '/dashboard/sign-in');
  }

  @Get('overview')
  async overview(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const signedIn = await this.signedIn(request);
    if (!signedIn) return redirect(reply, '/dashboard/sign-in');
    const merchantId = signedIn.user.merchantId;
    const [{ balances }, { records }] = await Promise.all([
      this.infrastructure.commands.send(new WalletBalances({ merchantId })),
      this.infrastructure.commands.send(new ListCollections({ merchantId, limit: 10 })),
    ]);
    send(reply, 200, overviewPage({ signedIn, balances, collections: records }));
  }

  private async signedIn(request: FastifyRequest): Promise<{ user: DashboardUser; csrfToken: string } | null> {
    const sessionId = readCookie(request, SESSION_COOKIE);
    return sessionId ? this.users.session(sessionId) : null;
  }

  /** The pre-session form token: the cookie's when there is one, else a new one set as the cookie. */
  private formToken(request: FastifyRequest, reply: FastifyReply): string {
    const existing = readCookie(request, FORM_COOKIE);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = randomBytes(32).toString('base64url');
    setCookie(request, reply, FORM_COOKIE, token, 60 * 60);
    return token;
  }

  private formTokenMatches(request: FastifyRequest, form: Form): boolean {
    const cookie = readCookie(request, FORM_COOKIE);
    return cookie !== undefined && cookie.length > 0 && field(form, '_csrf') === cookie;
  }

  /** A form without its token: sent from another site, or from a page older than the token. */
  private refuseForm(request: FastifyRequest, reply: FastifyReply): void {
    send(
      reply,
      403,
      signInPage({ csrf: this.formToken(request, reply), error: 'This form expired. Please try again.' }),
    );
  }
}
