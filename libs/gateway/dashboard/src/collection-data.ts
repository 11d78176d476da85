import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import {
  CollectionTimeline,
  CommandRejectedError,
  CurrentCollection,
  FindCollection,
  FindServicePayment,
  ListCallbacks,
  ListRefunds,
  type CollectionDetails,
} from '@paygate/contracts';
import type { Infrastructure } from '@paygate/platform';
import { attemptDueSoon } from './live-refresh';
import { leftToRefund } from './refund-left';
import { sendPage } from './responses';
import { may } from './roles';
import { collectionPage } from './views/collections';
import { problemPage, type Chrome } from './views/layout';
import type { RefundForm } from './views/refunds';

/** A collection's refunds the page lists; more than any collection is refunded in (each refund is at least 1 unit). */
const REFUNDS_SHOWN = 100;

/** What an action had to say on the collection's page: a notice after it, or the refund form as posted and refused. */
export interface CollectionShown {
  notice?: string;
  /** A refund just asked for: the page reloads itself until its refunds (a read model, which trails) list it. */
  awaitedRefund?: string;
  refund?: Pick<RefundForm, 'reference' | 'amount' | 'reason' | 'error'>;
}

/** A reference for a new refund form: one per form shown, so posting it twice is one refund. */
const newRefundReference = () => `dashboard-${randomBytes(12).toString('hex')}`;

const notFoundPage = (chrome: Chrome) =>
  problemPage('Collection not found', 'No collection of yours has this reference.', chrome);

export const isNotFound = (error: unknown) => error instanceof CommandRejectedError && error.code === 'not_found';

/** A collection's page as its GET and the actions on it show it: the record, its timeline, payment, callbacks and refunds. */
export class CollectionData {
  constructor(private readonly infrastructure: Infrastructure) {}

  /** The collection, or null after answering 404 when the merchant has none of this reference. */
  async find(reply: FastifyReply, chrome: Chrome, internalReference: string): Promise<CollectionDetails | null> {
    const merchantId = chrome.signedIn.user.merchantId;
    try {
      const { record } = await this.infrastructure.commands.send(new FindCollection({ merchantId, internalReference }));
      return record;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      sendPage(reply, 404, notFoundPage(chrome));
      return null;
    }
  }

  /**
   * The collection from its stream, as a refund must be decided (the read model can trail it), or null after answering
   * 404 when the merchant has none of this reference.
   */
  async current(reply: FastifyReply, chrome: Chrome, internalReference: string): Promise<CollectionDetails | null> {
    try {
      const found = await this.infrastructure.commands.send(new CurrentCollection({ internalReference }), {
        key: internalReference,
      });
      if (found.merchantId === chrome.signedIn.user.merchantId) return found.record;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    sendPage(reply, 404, notFoundPage(chrome));
    return null;
  }

  async send(
    reply: FastifyReply,
    status: number,
    chrome: Chrome,
    internalReference: string,
    shown: CollectionShown = {},
  ): Promise<void> {
    const record = await this.find(reply, chrome, internalReference);
    if (!record) return;
    const merchantId = chrome.signedIn.user.merchantId;
    const { commands } = this.infrastructure;
    const [{ entries }, { servicePayment }, { deliveries }, { refunds }] = await Promise.all([
      commands.send(new CollectionTimeline({ merchantId, internalReference })),
      commands.send(new FindServicePayment({ merchantId, internalReference })),
      commands.send(new ListCallbacks({ merchantId, internalReference, limit: 50 })),
      commands.send(new ListRefunds({ merchantId, internalReference, limit: REFUNDS_SHOWN })),
    ]);
    const role = chrome.signedIn.user.role;
    const left = leftToRefund(record, refunds);
    const awaited =
      shown.awaitedRefund !== undefined && !refunds.some((refund) => refund.refund_reference === shown.awaitedRefund);
    const refundable = record.transaction_status === 'COMPLETED' && may(role, 'moneyOut') && left > 0;
    sendPage(
      reply,
      status,
      collectionPage(chrome, {
        record,
        timeline: entries,
        servicePayment,
        callbacks: deliveries,
        canResend: may(role, 'resend'),
        refunds,
        refundForm: refundable
          ? { left, currency: record.transaction_currency, reference: newRefundReference(), ...shown.refund }
          : undefined,
        notice: shown.notice,
        refreshSeconds: awaited ? 1 : attemptDueSoon(deliveries, Date.now()) ? 2 : undefined,
      }),
    );
  }
}
