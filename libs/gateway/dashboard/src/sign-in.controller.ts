import { Body, Controller, Get, Inject, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_VALID_MS, type DashboardUsers, type SignInAttempts } from '@paygate/merchants';
import { PathPatterns } from '@paygate/platform';
import { FORM_COOKIE, readCookie, SESSION_COOKIE, setCookie } from './cookies';
import { DashboardErrorFilter } from './error-page.filter';
import { FORM_TOKEN_VALID_SECONDS, type FormTokens } from './form-token';
import { field, redirect, sendAsset, sendPage, type Form } from './responses';
import { SCRIPT } from './script';
import type { DashboardSessions } from './sessions';
import { STYLESHEET } from './stylesheet';
import { DASHBOARD_SESSIONS, DASHBOARD_USERS, FORM_TOKENS, SIGN_IN_ATTEMPTS } from './tokens';
import { invitePage, inviteGonePage, signInPage } from './views/auth';

const INVITE_TOKEN = '^[A-Za-z0-9_-]{43}$';
const PASSWORD_LENGTH = { min: 12, max: 256 };
const MERCHANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const CHOOSE_ACCOUNT =
  'This email and password open more than one merchant account. Choose one and enter the password again.';
const SIGN_IN_REFUSED =
  'That email and password do not match an account, or there were too many attempts. Try again in a few minutes.';

/**
 * The dashboard's way in and out (ADR 0006), and its two assets: invites, sign-in and sign-out.
 * Sessions live server-side, named by an HttpOnly cookie. A form before sign-in carries a token
 * the server issued (form-token.ts), also set as a cookie (double submit); a signed-in form
 * carries its session's CSRF token.
 */
@ApiExcludeController()
@UseFilters(DashboardErrorFilter)
@Controller('dashboard')
export class SignInController {
  constructor(
    @Inject(DASHBOARD_USERS) private readonly users: DashboardUsers,
    @Inject(DASHBOARD_SESSIONS) private readonly sessions: DashboardSessions,
    @Inject(SIGN_IN_ATTEMPTS) private readonly attempts: SignInAttempts,
    @Inject(FORM_TOKENS) private readonly formTokens: FormTokens,
  ) {}

  @Get()
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(reply, (await this.sessions.current(request)) ? '/dashboard/overview' : '/dashboard/sign-in');
  }

  @Get('assets/dashboard.js')
  script(@Res() reply: FastifyReply) {
    sendAsset(reply, 'text/javascript', SCRIPT);
  }

  @Get('assets/dashboard.css')
  stylesheet(@Res() reply: FastifyReply) {
    sendAsset(reply, 'text/css', STYLESHEET);
  }

  @Get('sign-in')
  signInForm(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const welcome = (request.query as Record<string, unknown>).welcome === '1';
    sendPage(
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
    const allowed = await this.attempts.attempt(request.ip, email);
    const chosen = field(form, 'merchant_id');
    const merchantId = MERCHANT_ID.test(chosen) ? chosen : undefined;
    const signedIn = allowed ? await this.users.signIn(email, field(form, 'password'), merchantId) : null;
    if (!signedIn) {
      return sendPage(
        reply,
        allowed ? 401 : 429,
        signInPage({ csrf: this.formToken(request, reply), email, error: SIGN_IN_REFUSED }),
      );
    }
    if ('choose' in signedIn) {
      const csrf = this.formToken(request, reply);
      return sendPage(reply, 200, signInPage({ csrf, email, notice: CHOOSE_ACCOUNT, accounts: signedIn.choose }));
    }
    setCookie(request, reply, SESSION_COOKIE, signedIn.session.id, SESSION_VALID_MS / 1_000);
    redirect(reply, '/dashboard/overview');
  }

  @Get('invite/:token')
  @PathPatterns({ token: INVITE_TOKEN })
  async inviteForm(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const user = await this.users.invited(token);
    if (!user) return sendPage(reply, 410, inviteGonePage());
    sendPage(reply, 200, invitePage({ csrf: this.formToken(request, reply), email: user.email }));
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
    if (!user) return sendPage(reply, 410, inviteGonePage());
    if (!this.formTokenMatches(request, form)) return this.refuseForm(request, reply);
    const password = field(form, 'password');
    const length = [...password].length;
    if (length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max) {
      const error = `The password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long.`;
      return sendPage(reply, 400, invitePage({ csrf: this.formToken(request, reply), email: user.email, error }));
    }
    if (!(await this.users.acceptInvite(token, password))) return sendPage(reply, 410, inviteGonePage());
    redirect(reply, '/dashboard/sign-in?welcome=1');
  }

  @Post('sign-out')
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const sessionId = readCookie(request, SESSION_COOKIE);
    const signedIn = await this.sessions.current(request);
    if (signedIn && field(form, '_csrf') !== signedIn.csrfToken) return this.refuseForm(request, reply);
    if (sessionId) await this.users.endSession(sessionId);
    setCookie(request, reply, SESSION_COOKIE, '', 0);
    redirect(reply, '/dashboard/sign-in');
  }

  /** The pre-session form token: the cookie's when this server issued it, else a new one set as the cookie. */
  private formToken(request: FastifyRequest, reply: FastifyReply): string {
    const existing = readCookie(request, FORM_COOKIE);
    if (this.formTokens.verify(existing)) return existing!;
    const token = this.formTokens.issue();
    setCookie(request, reply, FORM_COOKIE, token, FORM_TOKEN_VALID_SECONDS);
    return token;
  }

  /** The form's token is the cookie's, and this server issued it (matching copies someone made up are refused). */
  private formTokenMatches(request: FastifyRequest, form: Form): boolean {
    const cookie = readCookie(request, FORM_COOKIE);
    return this.formTokens.verify(cookie) && field(form, '_csrf') === cookie;
  }

  /** A form without its token: sent from another site, or from a page older than the token. */
  private refuseForm(request: FastifyRequest, reply: FastifyReply): void {
    sendPage(
      reply,
      403,
      signInPage({ csrf: this.formToken(request, reply), error: 'This form expired. Please try again.' }),
    );
  }
}
