import { Controller, Get, Inject, Param, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CollectionActivity,
  DELIVERY_STATES,
  FindCollection,
  INTERNAL_REFERENCE_PATTERN,
  ListCallbacks,
  ListCollections,
  ListServicePayments,
  MONEY_OUT_REFERENCE_PATTERN,
  WalletBalances,
  WalletStatement,
  type DeliveryState,
} from '@paygate/contracts';
import { INFRASTRUCTURE, PathPatterns, type Infrastructure } from '@paygate/platform';
import { isNotFound, type CollectionData } from './collection-data';
import { nextPageQuery, readCollectionsQuery } from './collection-filters';
import { CSV_HEADER, csvRows } from './collections-csv';
import type { DashboardConfig } from './dashboard-config';
import { activitySince, summarizeActivity } from './overview-stats';
import { pageAfter, positionQuery } from './page-position';
import { DashboardErrorFilter } from './error-page.filter';
import { sendDownload, sendPage } from './responses';
import { may } from './roles';
import type { DashboardSessions } from './sessions';
import type { SettingsData } from './settings-data';
import { COLLECTION_DATA, DASHBOARD_CONFIG, DASHBOARD_SESSIONS, SETTINGS_DATA } from './tokens';
import { callbacksPage } from './views/callbacks';
import { collectionsPage } from './views/collections';
import { PROBLEMS } from './views/layout';
import { paymentsPage, walletPage } from './views/ledger';
import { overviewPage } from './views/overview';
import { sandboxPage } from './views/sandbox';
import { SETTINGS_DONE } from './views/settings';

const PAGE_SIZE = 25;
const MONEY_OUT_REFERENCE = new RegExp(MONEY_OUT_REFERENCE_PATTERN);
const OVERVIEW_DAYS = 30;
/** The most collections one download holds (the newest matching the filters), read EXPORT_PAGE at a time. */
const EXPORT_MAX = 10_000;
const EXPORT_PAGE = 100;

/** The dashboard's pages: each reads what it shows through the same commands as the API, for the session's merchant. */
@ApiExcludeController()
@UseFilters(DashboardErrorFilter)
@Controller('dashboard')
export class PagesController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(DASHBOARD_SESSIONS) private readonly sessions: DashboardSessions,
    @Inject(SETTINGS_DATA) private readonly settingsData: SettingsData,
    @Inject(COLLECTION_DATA) private readonly collectionData: CollectionData,
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
  ) {}

  @Get('overview')
  async overview(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/overview');
    if (!chrome) return;
    const merchantId = chrome.signedIn.user.merchantId;
    const now = new Date();
    const [{ rows }, { balances }, { records }] = await Promise.all([
      this.infrastructure.commands.send(
        new CollectionActivity({ merchantId, since: activitySince(now, OVERVIEW_DAYS) }),
      ),
      this.infrastructure.commands.send(new WalletBalances({ merchantId })),
      this.infrastructure.commands.send(new ListCollections({ merchantId, limit: 10 })),
    ]);
    const activity = summarizeActivity(rows, now, OVERVIEW_DAYS);
    sendPage(reply, 200, overviewPage(chrome, { activity, balances, latest: records }));
  }

  @Get('collections')
  async collections(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query() query: Record<string, unknown>,
  ) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/collections');
    if (!chrome) return;
    const merchantId = chrome.signedIn.user.merchantId;
    const { filters, search, list, errors } = readCollectionsQuery(query, this.config.providerCodes);
    const view = { filters, providerCodes: this.config.providerCodes, errors, searched: search !== undefined };
    if (errors.length > 0) return sendPage(reply, 400, collectionsPage(chrome, { ...view, records: [] }));
    if (search) {
      const found = await this.infrastructure.commands
        .send(new FindCollection({ merchantId, ...search }))
        .catch((error: unknown) => {
          if (isNotFound(error)) return null;
          throw error;
        });
      return sendPage(reply, 200, collectionsPage(chrome, { ...view, records: found ? [found.record] : [] }));
    }
    const { records, next } = await this.infrastructure.commands.send(
      new ListCollections({ merchantId, limit: PAGE_SIZE, ...list }),
    );
    sendPage(
      reply,
      200,
      collectionsPage(chrome, { ...view, records, nextQuery: next && nextPageQuery(filters, next) }),
    );
  }

  /** The filtered list as a CSV download, newest first, up to EXPORT_MAX collections. */
  @Get('collections.csv')
  async collectionsCsv(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query() query: Record<string, unknown>,
  ) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/collections');
    if (!chrome) return;
    const merchantId = chrome.signedIn.user.merchantId;
    const { filters, list, errors } = readCollectionsQuery({ ...query, q: undefined }, this.config.providerCodes);
    const view = { filters, providerCodes: this.config.providerCodes, errors, searched: false, records: [] };
    if (errors.length > 0) return sendPage(reply, 400, collectionsPage(chrome, view));
    let csv = CSV_HEADER;
    let after = list.after;
    for (let exported = 0; exported < EXPORT_MAX;) {
      const page = await this.infrastructure.commands.send(
        new ListCollections({ merchantId, ...list, after, limit: Math.min(EXPORT_PAGE, EXPORT_MAX - exported) }),
      );
      csv += csvRows(page.records);
      exported += page.records.length;
      if (!page.next) break;
      after = page.next;
    }
    sendDownload(reply, `collections-${new Date().toISOString().slice(0, 10)}.csv`, 'text/csv', csv);
  }

  @Get('collections/:internal_reference')
  @PathPatterns({ internal_reference: INTERNAL_REFERENCE_PATTERN })
  async collection(
    @Param('internal_reference') internalReference: string,
    @Query('resent') resent: unknown,
    @Query('refunded') refunded: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/collections');
    if (!chrome) return;
    const notices: Record<string, string> = {
      resent: 'The callbacks will be sent again; this page shows each new attempt when it is made.',
      refunded: 'Refund requested: it stays PENDING until the provider answers, and its amount is held on the wallet.',
    };
    const refund = typeof refunded === 'string' && MONEY_OUT_REFERENCE.test(refunded) ? refunded : undefined;
    const done = resent === '1' ? 'resent' : refund ? 'refunded' : undefined;
    await this.collectionData.send(reply, 200, chrome, internalReference, {
      notice: done && notices[done],
      awaitedRefund: refund,
    });
  }

  @Get('callbacks')
  async callbacks(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query() query: Record<string, unknown>) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/callbacks');
    if (!chrome) return;
    const state = typeof query.state === 'string' ? query.state : '';
    const after = pageAfter(query);
    if (after === null) return sendPage(reply, 400, PROBLEMS.pageLink(chrome));
    if (state && !(DELIVERY_STATES as readonly string[]).includes(state)) {
      const error = `State must be one of ${DELIVERY_STATES.join(', ')}.`;
      return sendPage(reply, 400, callbacksPage(chrome, { state: '', deliveries: [], error }));
    }
    const { deliveries, next } = await this.infrastructure.commands.send(
      new ListCallbacks({
        merchantId: chrome.signedIn.user.merchantId,
        limit: PAGE_SIZE,
        ...(state && { state: state as DeliveryState }),
        ...(after && { after: { createdAt: after.at, webhookId: after.id } }),
      }),
    );
    const nextQuery = next && positionQuery({ at: next.createdAt, id: next.webhookId }, state ? { state } : {});
    sendPage(reply, 200, callbacksPage(chrome, { state, deliveries, nextQuery }));
  }

  @Get('payments')
  async payments(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query() query: Record<string, unknown>) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/payments');
    if (!chrome) return;
    const after = pageAfter(query);
    if (after === null) return sendPage(reply, 400, PROBLEMS.pageLink(chrome));
    const merchantId = chrome.signedIn.user.merchantId;
    const { payments, next } = await this.infrastructure.commands.send(
      new ListServicePayments({
        merchantId,
        limit: PAGE_SIZE,
        ...(after && { after: { openedAt: after.at, internalReference: after.id } }),
      }),
    );
    const nextQuery = next && positionQuery({ at: next.openedAt, id: next.internalReference });
    sendPage(reply, 200, paymentsPage(chrome, { payments, nextQuery }));
  }

  @Get('wallet')
  async wallet(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query() query: Record<string, unknown>) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/wallet');
    if (!chrome) return;
    const after = pageAfter(query);
    if (after === null) return sendPage(reply, 400, PROBLEMS.pageLink(chrome));
    const merchantId = chrome.signedIn.user.merchantId;
    const [{ balances }, { entries, next }] = await Promise.all([
      this.infrastructure.commands.send(new WalletBalances({ merchantId })),
      this.infrastructure.commands.send(
        new WalletStatement({
          merchantId,
          limit: PAGE_SIZE,
          ...(after && { after: { at: after.at, entryId: after.id } }),
        }),
      ),
    ]);
    const nextQuery = next && positionQuery({ at: next.at, id: next.entryId });
    sendPage(reply, 200, walletPage(chrome, { balances, entries, nextQuery }));
  }

  @Get('settings')
  async settings(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('done') done: unknown) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/settings');
    if (!chrome) return;
    const notice = typeof done === 'string' && Object.hasOwn(SETTINGS_DONE, done) ? SETTINGS_DONE[done] : undefined;
    await this.settingsData.send(reply, 200, chrome, { notice });
  }

  @Get('sandbox')
  async sandbox(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const chrome = await this.sessions.page(request, reply, '/dashboard/sandbox');
    if (!chrome) return;
    if (!this.config.sandbox) return sendPage(reply, 404, PROBLEMS.noSandbox(chrome));
    sendPage(reply, 200, sandboxPage(chrome, { canTrigger: may(chrome.signedIn.user.role, 'sandbox') }));
  }
}
