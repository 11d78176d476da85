import { randomBytes } from 'node:crypto';
import { Body, Controller, Inject, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CollectForPayment,
  CommandRejectedError,
  ConfirmCollection,
  DASHBOARD_TRIGGER_EVENTS,
  INTERNAL_REFERENCE_PATTERN,
  InitializeCollection,
  MONEY_OUT_REFERENCE_PATTERN,
  refundedCollectionOf,
  RequestRefund,
  ResendCallbacks,
  SANDBOX_TRIGGERS,
  SendTestCallback,
  STANDING_PRN,
} from '@paygate/contracts';
import {
  DASHBOARD_ROLES,
  EMAIL,
  type ActivityAction,
  type DashboardActivity,
  type DashboardRole,
  type DashboardUsers,
  type MerchantAccounts,
} from '@paygate/merchants';
import { isSupportedCurrency, toMinorUnits } from '@paygate/money';
import { callbackUrlRefusal } from '@paygate/net-guard';
import { INFRASTRUCTURE, PathPatterns, type Infrastructure } from '@paygate/platform';
import type { CollectionData } from './collection-data';
import type { DashboardConfig } from './dashboard-config';
import { DashboardErrorFilter } from './error-page.filter';
import { field, redirect, sendPage, type Form } from './responses';
import type { DashboardSessions } from './sessions';
import type { SettingsData } from './settings-data';
import {
  COLLECTION_DATA,
  DASHBOARD_CONFIG,
  DASHBOARD_SESSIONS,
  DASHBOARD_USERS,
  MERCHANT_ACCOUNTS,
  DASHBOARD_ACTIVITY,
  SETTINGS_DATA,
} from './tokens';
import { hostOf, majorMoney } from './views/format';
import { problemPage, PROBLEMS, type Chrome } from './views/layout';
import { sandboxPage } from './views/sandbox';
import { CALLBACK_URL_FIELDS, type CallbackUrlField, type SettingsView } from './views/settings';

const USER_ID = '^usr_[A-Za-z0-9_-]{16}$';
const REFUND_REFERENCE = new RegExp(MONEY_OUT_REFERENCE_PATTERN);
const REASON_MAX_LENGTH = 255;
/** A refused refund's HTTP status on the page, as the API answers it. */
const REFUSAL_STATUS: Record<string, number> = { not_found: 404, conflict: 409 };
const URL_MAX_LENGTH = 2048;

/** A one-time link to set a password, at the address the owner's browser used (TRUST_PROXY behind an ingress). */
const oneTimeLink = (
  request: FastifyRequest,
  made: { user: { email: string }; inviteToken: string; expiresAt: string },
  reason: 'invite' | 'reset',
) => ({
  email: made.user.email,
  url: `${request.protocol}://${request.host}/dashboard/invite/${made.inviteToken}`,
  expiresAt: made.expiresAt,
  reason,
});

/** A callback URL field as typed: empty means none; anything else must pass the address guard. */
function callbackUrlError(value: string, config: DashboardConfig): string | undefined {
  if (value === '') return undefined;
  if (value.length > URL_MAX_LENGTH) return `must be at most ${URL_MAX_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f\s]/.test(value)) return 'must not contain spaces or control characters';
  return callbackUrlRefusal(value, config.callbackTargets);
}

/**
 * What a signed-in user does from the dashboard: each action is allowed to some roles only, is
 * posted with the session's CSRF token (DashboardSessions.action), and sends the same commands as
 * the API and the admin API do.
 */
@ApiExcludeController()
@UseFilters(DashboardErrorFilter)
@Controller('dashboard')
export class ActionsController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(DASHBOARD_SESSIONS) private readonly sessions: DashboardSessions,
    @Inject(DASHBOARD_USERS) private readonly users: DashboardUsers,
    @Inject(MERCHANT_ACCOUNTS) private readonly merchants: MerchantAccounts,
    @Inject(DASHBOARD_ACTIVITY) private readonly activity: DashboardActivity,
    @Inject(SETTINGS_DATA) private readonly settingsData: SettingsData,
    @Inject(COLLECTION_DATA) private readonly collectionData: CollectionData,
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
  ) {}

  /**
   * Refunds (part of) a COMPLETED collection as POST /v1/refunds does, owners only. The form's refund_reference was
   * made when the form was shown, so the same form posted twice asks for the same refund, which is made once.
   */
  @Post('collections/:internal_reference/refund')
  @PathPatterns({ internal_reference: INTERNAL_REFERENCE_PATTERN })
  async refund(
    @Param('internal_reference') internalReference: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() form: Form,
  ) {
    const chrome = await this.sessions.action(request, reply, form, 'moneyOut', '/dashboard/collections');
    if (!chrome) return;
    const reference = field(form, 'refund_reference');
    if (!REFUND_REFERENCE.test(reference))
      return sendPage(reply, 400, problemPage('This form expired', 'Reload the page and try again.', chrome));
    const posted = { reference, amount: field(form, 'amount').trim(), reason: field(form, 'reason').trim() };
    const refused = (status: number, error: string) =>
      this.collectionData.send(reply, status, chrome, internalReference, { refund: { ...posted, error } });
    const record = await this.collectionData.current(reply, chrome, internalReference);
    if (!record) return;
    const collection = refundedCollectionOf(record);
    let amount: number | undefined;
    if (posted.amount !== '') {
      const converted = isSupportedCurrency(collection.currency)
        ? toMinorUnits(Number(posted.amount), collection.currency)
        : undefined;
      if (!converted?.ok)
        return refused(400, `The amount ${converted?.reason ?? 'is not valid'}: give it in ${collection.currency}.`);
      amount = converted.minor;
    }
    if (posted.reason.length > REASON_MAX_LENGTH)
      return refused(400, `The reason must be at most ${REASON_MAX_LENGTH} characters.`);
    const merchantId = chrome.signedIn.user.merchantId;
    try {
      const { refund } = await this.infrastructure.commands.send(
        new RequestRefund({
          merchantId,
          refundReference: reference,
          collection,
          amount,
          reason: posted.reason || undefined,
        }),
        { key: internalReference },
      );
      // Every accepted post is noted; the same form posted twice names the same refund_reference, one refund.
      await this.note(
        chrome,
        'refund',
        `${majorMoney(refund.amount, refund.currency)} of ${internalReference} (${refund.refund_reference})`,
      );
    } catch (error) {
      if (!(error instanceof CommandRejectedError)) throw error;
      return refused(REFUSAL_STATUS[error.code] ?? 400, `The refund was refused: ${error.message}.`);
    }
    // The page names the refund: it reloads itself until the refunds list (a read model) shows it.
    redirect(reply, `/dashboard/collections/${internalReference}?refunded=${encodeURIComponent(reference)}`);
  }

  @Post('collections/:internal_reference/resend')
  @PathPatterns({ internal_reference: INTERNAL_REFERENCE_PATTERN })
  async resend(
    @Param('internal_reference') internalReference: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() form: Form,
  ) {
    const chrome = await this.sessions.action(request, reply, form, 'resend', '/dashboard/collections');
    if (!chrome) return;
    const merchantId = chrome.signedIn.user.merchantId;
    const { deliveries } = await this.infrastructure.commands.send(
      new ResendCallbacks({ merchantId, internalReference }),
    );
    // Another merchant's collection has no callbacks of this merchant: the same answer as an unknown one.
    if (deliveries === 0)
      return sendPage(
        reply,
        404,
        problemPage('No callbacks to resend', 'No collection of yours with callbacks has this reference.', chrome),
      );
    await this.note(chrome, 'resend', internalReference);
    redirect(reply, `/dashboard/collections/${internalReference}?resent=1`);
  }

  @Post('settings/callback-urls')
  async saveCallbackUrls(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'configure', '/dashboard/settings');
    if (!chrome) return;
    const values = Object.fromEntries(
      CALLBACK_URL_FIELDS.map(({ name }) => [name, field(form, name).trim()]),
    ) as Record<CallbackUrlField, string>;
    const errors: Partial<Record<CallbackUrlField, string>> = {};
    for (const { name } of CALLBACK_URL_FIELDS) {
      const error = callbackUrlError(values[name], this.config);
      if (error) errors[name] = error;
    }
    if (Object.keys(errors).length > 0) return this.settings(reply, 400, chrome, { callbackForm: { values, errors } });
    await this.merchants.update(chrome.signedIn.user.merchantId, {
      collectionCallbackUrl: values.collection_callback_url || null,
      servicePaymentsCallbackUrl: values.service_payments_callback_url || null,
      payoutsCallbackUrl: values.payouts_callback_url || null,
    });
    await this.note(
      chrome,
      'callbackUrls',
      CALLBACK_URL_FIELDS.map(({ name, label }) => `${label}: ${hostOf(values[name]) ?? 'none'}`).join('; '),
    );
    redirect(reply, '/dashboard/settings?done=callback-urls');
  }

  @Post('settings/signing-key')
  async rotateSigningKey(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'configure', '/dashboard/settings');
    if (!chrome) return;
    const issued = await this.merchants.rotateKeys(chrome.signedIn.user.merchantId, ['signing']);
    if (!issued) return this.settingsData.send(reply, 404, chrome);
    await this.note(chrome, 'signingKey', '');
    await this.settings(reply, 200, chrome, {
      notice: 'A new signing key is in use: callbacks from now on are signed with it.',
      shownOnce: [{ id: 'new-signing-key', label: 'New signing key', value: issued.keys.signingKey }],
    });
  }

  @Post('settings/api-keys')
  async rotateApiKeys(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'configure', '/dashboard/settings');
    if (!chrome) return;
    const issued = await this.merchants.rotateKeys(chrome.signedIn.user.merchantId, ['api']);
    if (!issued) return this.settingsData.send(reply, 404, chrome);
    await this.note(chrome, 'apiKeys', `new public key ${issued.keys.publicKey}`);
    await this.settings(reply, 200, chrome, {
      notice: 'New API keys are in use: requests with the old ones are refused.',
      shownOnce: [
        { id: 'new-public-key', label: 'New public key', value: issued.keys.publicKey },
        { id: 'new-secret-key', label: 'New secret key', value: issued.keys.secretKey },
      ],
    });
  }

  @Post('settings/test-callback')
  async sendTestCallback(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'configure', '/dashboard/settings');
    if (!chrome) return;
    const testCallback = await this.infrastructure.commands.send(
      new SendTestCallback({ merchantId: chrome.signedIn.user.merchantId }),
      { timeoutMs: this.config.testCallbackWaitMs },
    );
    const outcome = testCallback.error ?? `answered ${testCallback.statusCode} in ${testCallback.durationMs} ms`;
    await this.note(chrome, 'testCallback', outcome);
    await this.settings(reply, 200, chrome, { testCallback });
  }

  @Post('settings/users')
  async invite(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'manageUsers', '/dashboard/settings');
    if (!chrome) return;
    const email = field(form, 'email').trim();
    const role = field(form, 'role');
    if (!EMAIL.test(email) || email.length > 254)
      return this.settings(reply, 400, chrome, { error: 'Give the email address of the person to invite.' });
    if (!(DASHBOARD_ROLES as readonly string[]).includes(role))
      return this.settings(reply, 400, chrome, { error: `The role must be one of ${DASHBOARD_ROLES.join(', ')}.` });
    const invited = await this.users.invite(chrome.signedIn.user.merchantId, email, role as DashboardRole);
    if (!invited)
      return this.settings(reply, 409, chrome, { error: `${email} is already one of your dashboard users.` });
    await this.note(chrome, 'invite', `${invited.user.email} as ${invited.user.role}`);
    await this.settings(reply, 201, chrome, { invited: oneTimeLink(request, invited, 'invite') });
  }

  @Post('settings/users/:id/role')
  @PathPatterns({ id: USER_ID })
  async changeRole(
    @Param('id') userId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() form: Form,
  ) {
    const chrome = await this.sessions.action(request, reply, form, 'manageUsers', '/dashboard/settings');
    if (!chrome) return;
    const role = field(form, 'role');
    if (!(DASHBOARD_ROLES as readonly string[]).includes(role))
      return this.settings(reply, 400, chrome, { error: `The role must be one of ${DASHBOARD_ROLES.join(', ')}.` });
    // An owner who demoted or removed themselves could leave the merchant with no owner.
    if (userId === chrome.signedIn.user.id)
      return this.settings(reply, 400, chrome, { error: 'Another owner has to change your own role.' });
    const changed = await this.users.changeRole(chrome.signedIn.user.merchantId, userId, role as DashboardRole);
    if (!changed) return this.settings(reply, 404, chrome, { error: 'That user is not one of this merchant’s.' });
    await this.note(chrome, 'role', `${changed.email} is now ${changed.role}`);
    redirect(reply, '/dashboard/settings?done=role');
  }

  @Post('settings/users/:id/reset-password')
  @PathPatterns({ id: USER_ID })
  async resetPassword(
    @Param('id') userId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() form: Form,
  ) {
    const chrome = await this.sessions.action(request, reply, form, 'manageUsers', '/dashboard/settings');
    if (!chrome) return;
    // As with roles: another owner does it, so no one signs themselves out with a link only they hold.
    if (userId === chrome.signedIn.user.id)
      return this.settings(reply, 400, chrome, { error: 'Another owner has to reset your password.' });
    const reset = await this.users.resetPassword(chrome.signedIn.user.merchantId, userId);
    if (!reset) return this.settings(reply, 404, chrome, { error: 'That user is not one of this merchant’s.' });
    await this.note(chrome, 'reset', reset.user.email);
    await this.settings(reply, 200, chrome, { invited: oneTimeLink(request, reset, 'reset') });
  }

  @Post('settings/users/:id/remove')
  @PathPatterns({ id: USER_ID })
  async remove(
    @Param('id') userId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() form: Form,
  ) {
    const chrome = await this.sessions.action(request, reply, form, 'manageUsers', '/dashboard/settings');
    if (!chrome) return;
    if (userId === chrome.signedIn.user.id)
      return this.settings(reply, 400, chrome, { error: 'Another owner has to remove you.' });
    const merchantId = chrome.signedIn.user.merchantId;
    const removed = (await this.users.list(merchantId)).find((user) => user.id === userId);
    if (!removed || !(await this.users.remove(merchantId, userId)))
      return this.settings(reply, 404, chrome, { error: 'That user is not one of this merchant’s.' });
    await this.note(chrome, 'remove', removed.email);
    redirect(reply, '/dashboard/settings?done=removed');
  }

  @Post('sandbox/trigger')
  async trigger(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'sandbox', '/dashboard/sandbox');
    if (!chrome) return;
    if (!this.config.sandbox) return sendPage(reply, 404, PROBLEMS.noSandbox(chrome));
    const event = field(form, 'event');
    const trigger = DASHBOARD_TRIGGER_EVENTS.includes(event) ? SANDBOX_TRIGGERS[event] : undefined;
    if (!trigger)
      return sendPage(reply, 400, sandboxPage(chrome, { canTrigger: true, error: 'Choose one of the events listed.' }));
    const merchantId = chrome.signedIn.user.merchantId;
    const collection = {
      merchant_reference: `sandbox-${event.replace('.', '-')}-${randomBytes(4).toString('hex')}`,
      // The standing PRN can be paid once; after that the biller refuses it (payment.failed), as `paygate trigger` says.
      ...trigger.request(trigger.needsPayablePrn ? STANDING_PRN : undefined),
    };
    try {
      const command = { merchantId, request: collection };
      const { data } = await this.infrastructure.commands.send(
        collection.prn === undefined ? new InitializeCollection(command) : new CollectForPayment(command),
      );
      const internalReference = String(data.internal_reference);
      if (trigger.confirm)
        await this.infrastructure.commands.send(new ConfirmCollection({ merchantId, internalReference }));
      await this.note(chrome, 'trigger', `${event}: ${internalReference}`);
      redirect(reply, `/dashboard/collections/${internalReference}`);
    } catch (error) {
      if (!(error instanceof CommandRejectedError)) throw error;
      const refusal = `The sandbox refused it: ${error.message}.`;
      sendPage(reply, 422, sandboxPage(chrome, { canTrigger: true, error: refusal }));
    }
  }

  /** The settings page after an action, with what the action has to show. */
  private settings(reply: FastifyReply, status: number, chrome: Chrome, shown: Partial<SettingsView>): Promise<void> {
    return this.settingsData.send(reply, status, chrome, shown);
  }

  /** The merchant's activity log: who did what, once it is done. */
  private note(chrome: Chrome, action: ActivityAction, detail: string): Promise<void> {
    const { merchantId, email } = chrome.signedIn.user;
    return this.activity.record(merchantId, email, action, detail);
  }
}
