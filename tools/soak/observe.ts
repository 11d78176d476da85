import { moneyOutStream, providerReferenceOf, WALLET_STREAM_PREFIX } from '@paygate/contracts';
import {
  type Transfer,
  type WalletEvent,
  transfersOf,
  WALLET_EVENT_TYPES,
  walletLedgerDecider,
} from '@paygate/payments-domain';
import { storedEvent } from '@paygate/decider';
import { openSqlDatabase } from '@paygate/sql';
import { describe, persist, type Answer, type Request, type RetryCounts } from './http';
import type { Flow, Merchant } from './load';
import type { MoneyOutFlow } from './money-out';

const isUgxWallet = (wallet: unknown): wallet is { currency: 'UGX'; balance: number } =>
  typeof wallet === 'object' &&
  wallet !== null &&
  (wallet as { currency?: unknown }).currency === 'UGX' &&
  typeof (wallet as { balance?: unknown }).balance === 'number';

/** A collection as GET /v1/collections/{ref} showed it once it was final. */
export interface FinalState {
  status: string;
  statusMessage: string;
  /** Collect-for-payment only: the PRN payment's status and message. */
  servicePaymentStatus?: string;
  servicePaymentMessage?: string;
}

export interface PrnAtBiller {
  status: string;
  payments: number;
}

/** A refund or payout as GET /v1/refunds/{ref} or /v1/payouts/{ref} showed it once it was final. */
export interface MoneyOutFinal {
  status: string;
  failureReason: string | null;
}

/** What the sandbox provider recorded under a money-out's provider reference. */
export interface AtProvider {
  /** Every request that named the reference: the first and each one sent again. */
  requestsReceived: number;
  /** PENDING, SUCCESSFUL, FAILED or REVERSED. */
  status: string;
}

/** A wallet hold's placement or settlement, as the ledger's events recorded it. */
export interface HoldEvent {
  holdId: string;
  event: 'placed' | 'released' | 'captured';
}

export interface Ledger {
  wallets: number;
  transfers: Transfer[];
  holds: HoldEvent[];
  /** Balance of every account the transfers touched. */
  balances: Record<string, number>;
}

/** What the soak reads back from the apps, the sandbox and the database to judge the run. */
export class Observer {
  /** internal_reference → its final state. */
  readonly finals = new Map<string, FinalState>();
  /** payout_reference or refund_reference → its final state. */
  readonly moneyOutFinals = new Map<string, MoneyOutFinal>();
  private readonly retries: RetryCounts = {};

  constructor(
    private readonly options: {
      gateways: string[];
      sandbox: string;
      adminToken: string;
      storeUrl: string;
      timeoutMs: number;
    },
  ) {}

  /** Asks for every acknowledged collection not yet seen final; true when all are. */
  async refreshFinals(flows: Flow[]): Promise<boolean> {
    const pending = flows.filter((flow) => flow.internalReference && !this.finals.has(flow.internalReference));
    await inBatches(pending, 8, async (flow) => {
      const answer = await this.get(`/v1/collections/${flow.internalReference}`, flow.merchant);
      const record = 'status' in answer && answer.status === 200 ? answer.body.data : undefined;
      if (!record || record.transaction_status === 'PENDING') return;
      const servicePayment = record.service_payment as
        { transaction_status?: string; status_message?: string } | undefined;
      if (flow.prn && !['COMPLETED', 'FAILED'].includes(String(servicePayment?.transaction_status))) return;
      this.finals.set(String(flow.internalReference), {
        status: String(record.transaction_status),
        statusMessage: String(record.status_message),
        servicePaymentStatus: servicePayment?.transaction_status,
        servicePaymentMessage: servicePayment?.status_message,
      });
    });
    return pending.every((flow) => this.finals.has(String(flow.internalReference)));
  }

  /** Asks for every accepted refund and payout not yet seen final; true when all are. */
  async refreshMoneyOut(flows: MoneyOutFlow[]): Promise<boolean> {
    const pending = flows.filter((flow) => flow.acceptedAt !== undefined && !this.moneyOutFinals.has(flow.reference));
    await inBatches(pending, 8, async (flow) => {
      const answer = await this.get(`/v1/${flow.kind}s/${flow.reference}`, flow.merchant);
      const record = 'status' in answer && answer.status === 200 ? answer.body.data : undefined;
      const status = String(record?.status);
      // A payout the provider reverses is COMPLETED first: final only once REVERSED.
      if (!record || ['PENDING', 'PENDING_APPROVAL'].includes(status) || (flow.reversed && status === 'COMPLETED'))
        return;
      this.moneyOutFinals.set(flow.reference, {
        status,
        failureReason: typeof record.failure_reason === 'string' ? record.failure_reason : null,
      });
    });
    return pending.every((flow) => this.moneyOutFinals.has(flow.reference));
  }

  /** What the sandbox provider recorded for each accepted refund and payout; absent: it never registered one. */
  async atProvider(flows: MoneyOutFlow[]): Promise<Map<string, AtProvider>> {
    const found = new Map<string, AtProvider>();
    await inBatches(
      flows.filter((flow) => flow.acceptedAt !== undefined),
      8,
      async (flow) => {
        const kind = flow.kind === 'payout' ? 'PAYOUT' : 'REFUND';
        const providerReference = providerReferenceOf(moneyOutStream(kind, flow.merchant.id, flow.reference), kind);
        const answer = await this.call({
          method: 'GET',
          url: `${this.options.sandbox}/sandbox/v1/money-out/${providerReference}?kind=${flow.kind}`,
          headers: { authorization: `Bearer ${this.options.adminToken}` },
        });
        if ('status' in answer && answer.status === 404) return;
        if (!('status' in answer) || answer.status !== 200)
          throw new Error(`cannot read ${flow.kind} ${flow.reference} at the sandbox provider: ${describe(answer)}`);
        const data = answer.body.data as { requests_received: number; status: string };
        found.set(flow.reference, { requestsReceived: data.requests_received, status: data.status });
      },
    );
    return found;
  }

  async prns(flows: Flow[]): Promise<Map<string, PrnAtBiller>> {
    const prns = new Map<string, PrnAtBiller>();
    await inBatches(
      flows.filter((flow) => flow.prn),
      8,
      async (flow) => {
        const answer = await this.call({
          method: 'GET',
          url: `${this.options.sandbox}/sandbox/v1/prns/${flow.prn}`,
          headers: { authorization: `Bearer ${this.options.adminToken}` },
        });
        if (!('status' in answer) || answer.status !== 200)
          throw new Error(`cannot read PRN ${flow.prn} at the sandbox biller: ${describe(answer)}`);
        const data = answer.body.data as { status: string; payments: unknown[] };
        prns.set(String(flow.prn), { status: data.status, payments: data.payments.length });
      },
    );
    return prns;
  }

  /** The wallet ledger from its events (every wallet stream of the run's database), read straight from PostgreSQL. */
  async ledger(): Promise<Ledger> {
    const db = await openSqlDatabase(this.options.storeUrl);
    try {
      const rows = await db.query<{
        stream_name: string;
        event_type: string;
        data: Record<string, unknown>;
        metadata: Record<string, unknown>;
      }>(
        'select stream_name, event_type, data, metadata from es_events where stream_name like $1 order by global_position',
        [`${WALLET_STREAM_PREFIX}%`],
      );
      const events = rows
        .map((row) =>
          walletLedgerDecider.read(storedEvent({ type: row.event_type, data: row.data, metadata: row.metadata })),
        )
        .filter((event): event is WalletEvent => event !== undefined);
      const transfers = events.flatMap(transfersOf);
      const holds = events.flatMap((event): HoldEvent[] => {
        if (event.type === WALLET_EVENT_TYPES.holdPlaced) return [{ holdId: event.data.holdId, event: 'placed' }];
        if (event.type === WALLET_EVENT_TYPES.holdReleased) return [{ holdId: event.data.holdId, event: 'released' }];
        if (event.type === WALLET_EVENT_TYPES.holdCaptured) return [{ holdId: event.data.holdId, event: 'captured' }];
        return [];
      });
      const balances: Record<string, number> = {};
      for (const { debitAccount, creditAccount, amount } of transfers) {
        balances[debitAccount] = (balances[debitAccount] ?? 0) - amount;
        balances[creditAccount] = (balances[creditAccount] ?? 0) + amount;
      }
      return { wallets: new Set(rows.map((row) => row.stream_name)).size, transfers, holds, balances };
    } finally {
      await db.close();
    }
  }

  /** Each merchant's UGX wallet balance as the API shows it (the read model), in minor units. */
  async walletBalances(merchants: Merchant[]): Promise<Map<string, number>> {
    const balances = new Map<string, number>();
    for (const merchant of merchants) {
      const answer = await this.get('/v1/wallet-balances', merchant);
      if (!('status' in answer) || answer.status !== 200)
        throw new Error(`cannot read the wallet of merchant ${merchant.index}: ${describe(answer)}`);
      // The data of /v1/wallet-balances is a list of { currency, balance }.
      const wallets: unknown = answer.body.data;
      const ugx = Array.isArray(wallets) ? wallets.find(isUgxWallet) : undefined;
      // UGX has no minor unit: the API's major units are the ledger's minor units.
      balances.set(merchant.id, ugx?.balance ?? 0);
    }
    return balances;
  }

  private get(path: string, merchant: Merchant): Promise<Answer> {
    return this.call({
      method: 'GET',
      url: `${this.options.gateways[0]}${path}`,
      headers: { 'public-key': merchant.publicKey, 'secret-key': merchant.secretKey },
    });
  }

  private call(request: Request): Promise<Answer> {
    const deadline = Date.now() + 30_000;
    return persist(() => request, {
      timeoutMs: this.options.timeoutMs,
      giveUpAt: () => deadline,
      retries: this.retries,
    });
  }
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let at = 0; at < items.length; at += size) await Promise.all(items.slice(at, at + size).map(work));
}
