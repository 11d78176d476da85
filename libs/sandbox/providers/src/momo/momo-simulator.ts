import { createHash, randomBytes, randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Background } from '../background';
import { SANDBOX_CONFIG, type SandboxConfig } from '../sandbox-config';
import { MomoStore, type MomoStatus, type RequestToPay, type StoredRequestToPay } from './momo-store';

export const TOKEN_LIFETIME_SECONDS = 3600;

/** MoMo's API products; a token one issued is good for that one only. */
export type MomoProduct = 'collection' | 'disbursement';

/** The test numbers' endings; `undefined` is a customer who never answers the prompt. */
function outcomeFor(
  partyId: string,
): { status: MomoStatus; reason?: string; financialTransactionId?: string } | undefined {
  switch (partyId.slice(-4)) {
    case '0002':
      return { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' };
    case '0003':
      return { status: 'FAILED', reason: 'APPROVAL_REJECTED' };
    case '0004':
      return undefined;
    default:
      return { status: 'SUCCESSFUL', financialTransactionId: String(randomInt(1_000_000_000, 10_000_000_000)) };
  }
}

/** Ending 0005 succeeds without a callback, so only status polling reveals it. */
const silent = (partyId: string) => partyId.endsWith('0005');

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** MoMo's status representation, also the body of its callback. */
export function statusBody(request: StoredRequestToPay): Record<string, unknown> {
  return {
    amount: request.amount,
    currency: request.currency,
    financialTransactionId: request.financialTransactionId,
    externalId: request.externalId,
    payer: request.payer,
    payerMessage: request.payerMessage,
    payeeNote: request.payeeNote,
    status: request.status,
    reason: request.reason,
  };
}

@Injectable()
export class MomoSimulator {
  constructor(
    private readonly store: MomoStore,
    private readonly background: Background,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
  ) {}

  async issueToken(product: MomoProduct): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.store.saveToken(hashToken(token), product, new Date(Date.now() + TOKEN_LIFETIME_SECONDS * 1000));
    return token;
  }

  tokenValid(token: string, product: MomoProduct): Promise<boolean> {
    return this.store.tokenValid(hashToken(token), product);
  }

  /** False when the reference id was used before. */
  async requestToPay(request: Omit<RequestToPay, 'resolvesAt'>): Promise<boolean> {
    const answers = outcomeFor(request.payer.partyId) !== undefined;
    const accepted = await this.store.insert({
      ...request,
      resolvesAt: answers ? new Date(Date.now() + this.config.latencyMs) : undefined,
    });
    if (accepted && answers) this.background.later(this.config.latencyMs, () => this.resolve(request.referenceId));
    return accepted;
  }

  /** Settles an outcome whose time has passed, so a restart that lost its timer still answers. */
  async status(referenceId: string): Promise<StoredRequestToPay | undefined> {
    const request = await this.store.find(referenceId);
    if (request?.status !== 'PENDING' || request.resolvesAt === undefined || request.resolvesAt.getTime() > Date.now())
      return request;
    return this.store.settle(referenceId, outcomeFor(request.payer.partyId)!);
  }

  /** The timer's side: whoever settled first, the callback goes out from here, once. */
  private async resolve(referenceId: string): Promise<void> {
    const pending = await this.store.find(referenceId);
    if (!pending) return;
    const request = await this.store.settle(referenceId, outcomeFor(pending.payer.partyId)!);
    if (!request?.callbackUrl || silent(request.payer.partyId)) return;
    await this.background.callback('PUT', request.callbackUrl, statusBody(request), { provider: 'momo', referenceId });
  }
}
