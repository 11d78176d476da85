import { randomBytes } from 'node:crypto';
import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApprovePayout,
  CheckRecipient,
  CommandRejectedError,
  ListMoneyOutAttention,
  ListPayoutApprovals,
  ListPayouts,
  MONEY_OUT_REFERENCE_PATTERN,
  payoutSettingsIn,
  RequestPayout,
} from '@paygate/contracts';
import type { DashboardActivity, MerchantAccounts } from '@paygate/merchants';
import { isSupportedCurrency, toMinorUnits } from '@paygate/money';
import { INFRASTRUCTURE, PathPatterns, type Infrastructure } from '@paygate/platform';
import type { DashboardConfig } from './dashboard-config';
import { DashboardErrorFilter } from './error-page.filter';
import { field, redirect, sendPage, type Form } from './responses';
import { may } from './roles';
import type { DashboardSessions } from './sessions';
import { DASHBOARD_ACTIVITY, DASHBOARD_CONFIG, DASHBOARD_SESSIONS, MERCHANT_ACCOUNTS } from './tokens';
import { majorMoney } from './views/format';
import { PROBLEMS, problemPage, type Chrome } from './views/layout';
import { payoutsPage, type PayoutDraft, type PayoutsView } from './views/payouts';

const PAGE = '/dashboard/payouts';
const LIST_SIZE = 25;
const MSISDN = /^[0-9]{6,15}$/;
const PAYOUT_REFERENCE = new RegExp(MONEY_OUT_REFERENCE_PATTERN);
const NAME_MAX_LENGTH = 100;
/** A refused approval's HTTP status on the page, as the API would answer it. */
const REFUSAL_STATUS: Record<string, number> = { not_found: 404, conflict: 409, not_awaiting_confirmation: 409 };
const NOTICES: Record<string, string> = {
  sent: 'Payout sent: it stays PENDING until the provider answers (or waits for approval above your threshold).',
  approved: 'Payout approved: it is sent to the provider now.',
};

const newPayoutReference = () => `dashboard-${randomBytes(12).toString('hex')}`;

/**
 * The Payouts page: an owner sends wallet money to a mobile money number after seeing the account holder's name
 * (the name check), and approves payouts waiting above the approval threshold that another owner sent. The same
 * commands as POST /v1/payouts and the payouts reads; each action in the activity log.
 */
@ApiExcludeController()
@UseFilters(DashboardErrorFilter)
@Controller('dashboard')
export class PayoutsController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(DASHBOARD_SESSIONS) private readonly sessions: DashboardSessions,
    @Inject(MERCHANT_ACCOUNTS) private readonly merchants: MerchantAccounts,
    @Inject(DASHBOARD_ACTIVITY) private readonly activity: DashboardActivity,
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
  ) {}

  /** After Send payout or Approve the page names the payout, and reloads itself until the lists (read models) show it. */
  @Get('payouts')
  async payouts(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query() query: Record<string, unknown>) {
    const chrome = await this.sessions.page(request, reply, PAGE);
    if (!chrome) return;
    const done = Object.keys(NOTICES).find(
      (key) => typeof query[key] === 'string' && PAYOUT_REFERENCE.test(query[key] as string),
    );
    const awaited = done && { reference: query[done] as string, approved: done === 'approved' };
    await this.show(reply, 200, chrome, { notice: done && NOTICES[done], awaited: awaited || undefined });
  }

  /** The name check: the account holder shown, with Send payout, or why the payout cannot go. */
  @Post('payouts/check')
  async check(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'moneyOut', PAGE);
    if (!chrome) return;
    const draft = draftOf(form);
    const refusal = this.draftRefusal(draft);
    if (refusal) return this.show(reply, 400, chrome, { draft, error: refusal });
    try {
      const { recipient } = await this.infrastructure.commands.send(
        new CheckRecipient({ providerCode: draft.providerCode, msisdn: draft.msisdn }),
      );
      if (!recipient.canReceive || !recipient.name)
        return this.show(reply, 400, chrome, { draft, error: `${draft.msisdn} cannot receive mobile money.` });
      await this.show(reply, 200, chrome, {
        checked: { ...draft, reference: newPayoutReference(), holder: recipient.name },
      });
    } catch (error) {
      if (!(error instanceof CommandRejectedError)) throw error;
      await this.show(reply, 400, chrome, { draft, error: `The name check was refused: ${error.message}.` });
    }
  }

  /** Send payout: the checked payout, its reference made with the form, so the same form posted twice is one payout. */
  @Post('payouts')
  async send(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form) {
    const chrome = await this.sessions.action(request, reply, form, 'moneyOut', PAGE);
    if (!chrome) return;
    const draft = draftOf(form);
    const reference = field(form, 'payout_reference');
    const recipientName = field(form, 'recipient_name');
    const provider = this.config.payoutProviders.find((known) => known.code === draft.providerCode);
    const amount = provider && toMinor(draft.amount, provider.currency);
    if (
      !provider ||
      amount === undefined ||
      !PAYOUT_REFERENCE.test(reference) ||
      !MSISDN.test(draft.msisdn) ||
      recipientName.length > NAME_MAX_LENGTH
    )
      return sendPage(reply, 400, problemPage('This form expired', 'Start the payout again.', chrome));
    const { merchantId, id: userId } = chrome.signedIn.user;
    const merchant = await this.merchants.get(merchantId);
    if (!merchant) return sendPage(reply, 404, PROBLEMS.merchantGone(chrome));
    try {
      const { payout } = await this.infrastructure.commands.send(
        new RequestPayout({
          merchantId,
          payoutReference: reference,
          currency: provider.currency,
          amount,
          providerCode: provider.code,
          msisdn: draft.msisdn,
          recipientName: recipientName || undefined,
          settings: payoutSettingsIn(merchant, provider.currency),
          createdBy: userId,
        }),
        { key: `${merchantId}:${reference}` },
      );
      // Every accepted post is noted; the same form posted twice names the same payout_reference, one payout.
      const waiting = payout.status === 'PENDING_APPROVAL' ? ', waiting for approval' : '';
      await this.note(
        chrome,
        'payout',
        `${majorMoney(payout.amount, payout.currency)} to ${payout.msisdn} (${reference})${waiting}`,
      );
    } catch (error) {
      if (!(error instanceof CommandRejectedError)) throw error;
      const status = REFUSAL_STATUS[error.code] ?? 400;
      return this.show(reply, status, chrome, { draft, error: `The payout was refused: ${error.message}.` });
    }
    redirect(reply, `${PAGE}?sent=${encodeURIComponent(reference)}`);
  }

  @Post('payouts/:payout_reference/approve')
  @PathPatterns({ payout_reference: MONEY_OUT_REFERENCE_PATTERN })
  async approve(
    @Param('payout_reference') payoutReference: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() form: Form,
  ) {
    const chrome = await this.sessions.action(request, reply, form, 'moneyOut', PAGE);
    if (!chrome) return;
    const { merchantId, id: approverId } = chrome.signedIn.user;
    try {
      const { payout } = await this.infrastructure.commands.send(
        new ApprovePayout({ merchantId, payoutReference, approverId }),
        { key: `${merchantId}:${payoutReference}` },
      );
      await this.note(chrome, 'approvePayout', `${majorMoney(payout.amount, payout.currency)} (${payoutReference})`);
    } catch (error) {
      if (!(error instanceof CommandRejectedError)) throw error;
      const status = REFUSAL_STATUS[error.code] ?? 400;
      return this.show(reply, status, chrome, { error: `The approval was refused: ${error.message}.` });
    }
    redirect(reply, `${PAGE}?approved=${encodeURIComponent(payoutReference)}`);
  }

  /** Why the draft cannot be checked, in a sentence; undefined when it can. */
  private draftRefusal(draft: PayoutDraft): string | undefined {
    const provider = this.config.payoutProviders.find((known) => known.code === draft.providerCode);
    if (!provider) return 'Choose one of the providers listed.';
    if (!MSISDN.test(draft.msisdn)) return 'Give the mobile money number as 6 to 15 digits with the calling code.';
    if (toMinor(draft.amount, provider.currency) === undefined)
      return `Give the amount as a positive number of ${provider.currency}.`;
    return undefined;
  }

  private async show(
    reply: FastifyReply,
    status: number,
    chrome: Chrome,
    shown: Pick<PayoutsView, 'draft' | 'checked' | 'error' | 'notice'> & {
      awaited?: { reference: string; approved: boolean };
    },
  ): Promise<void> {
    const merchantId = chrome.signedIn.user.merchantId;
    const [{ payouts }, { waiting }, { items }] = await Promise.all([
      this.infrastructure.commands.send(new ListPayouts({ merchantId, limit: LIST_SIZE })),
      this.infrastructure.commands.send(new ListPayoutApprovals({ merchantId, limit: LIST_SIZE })),
      this.infrastructure.commands.send(new ListMoneyOutAttention({ merchantId, limit: LIST_SIZE })),
    ]);
    const { awaited, ...rest } = shown;
    const listed = awaited && payouts.find((payout) => payout.payout_reference === awaited.reference);
    const view: PayoutsView = {
      payouts,
      waiting,
      attention: items,
      providers: this.config.payoutProviders,
      canMoveMoney: may(chrome.signedIn.user.role, 'moneyOut'),
      stale: awaited !== undefined && (!listed || (awaited.approved && listed.status === 'PENDING_APPROVAL')),
      ...rest,
    };
    sendPage(reply, status, payoutsPage(chrome, view));
  }

  private note(chrome: Chrome, action: 'payout' | 'approvePayout', detail: string): Promise<void> {
    const { merchantId, email } = chrome.signedIn.user;
    return this.activity.record(merchantId, email, action, detail);
  }
}

function draftOf(form: Form): PayoutDraft {
  return {
    providerCode: field(form, 'provider_code'),
    msisdn: field(form, 'msisdn').trim(),
    amount: field(form, 'amount').trim(),
  };
}

/** A positive amount typed in major units, in minor units; undefined when it is not one. */
function toMinor(amount: string, currency: string): number | undefined {
  if (amount === '' || !isSupportedCurrency(currency)) return undefined;
  const converted = toMinorUnits(Number(amount), currency);
  return converted.ok && converted.minor > 0 ? converted.minor : undefined;
}
